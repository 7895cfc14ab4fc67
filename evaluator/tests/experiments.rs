//! Experiments over synthetic run directories: grouping into variants, the
//! mean/min–max band, the summary figures (worked by hand), the figure
//! files, and every way a run can be unusable.

use std::path::{Path, PathBuf};

use clap::Parser;
use rnad_evaluator::commands::Cli;
use rnad_evaluator::experiments::group::group;
use rnad_evaluator::experiments::runs::{load_run, load_runs};
use rnad_evaluator::experiments::stats::{band, variant_stats, Axis, BandEdges, Measure};
use rnad_evaluator::experiments::summary::{summary_csv, summary_markdown, CSV_HEADER};
use rnad_run::config::{Averaging, Config};
use rnad_run::history::PolicyKind;
use rnad_run::history::{HeadToHead, HistoryEntry, LocalBestResponse, NashConvs};
use rnad_testkit::{scratch, TestConfig};

fn config(dir: &Path, averaging: Averaging, seed: u64) -> Config {
    TestConfig::file("kuhn")
        .with(|c| {
            c.seed = seed;
            c.rnad.averaging = averaging;
        })
        .in_run_dir(dir)
}

/// Target NashConv `values[i]` at step `steps[i]`; the other kinds are
/// offsets of it, so each kind is told apart (the target's average too).
fn entries(steps: &[u64], values: &[f64]) -> Vec<HistoryEntry> {
    entries_averaged(steps, values, true)
}

/// [`entries`], with or without the target's average.
fn entries_averaged(steps: &[u64], values: &[f64], averaged: bool) -> Vec<HistoryEntry> {
    steps
        .iter()
        .zip(values)
        .map(|(&step, &v)| HistoryEntry {
            learner_step: step,
            wall_seconds: step as f64 / 100.0,
            decisions: step * 10,
            nash_conv: Some(NashConvs {
                online: v + 1.0,
                target: v,
                target_postprocessed: v + 0.5,
                reg: v + 2.0,
                target_average: averaged.then_some(v + 3.0),
                average_network: None,
            }),
            lbr: None,
            head_to_head: Vec::new(),
        })
        .collect()
}

/// A run directory `root/name` with its config and history.
fn make_run(root: &Path, name: &str, config: Config, history: &[HistoryEntry]) -> PathBuf {
    let dir = root.join(name);
    let mut config = config;
    config.run_dir = dir.clone();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), config.to_toml()).unwrap();
    for entry in history {
        rnad_run::jsonl::append(&dir.join("history.jsonl"), entry).unwrap();
    }
    dir
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn runs_are_grouped_by_everything_but_the_seed() {
    let root = scratch("grouping");
    let falling = entries(&[0, 10, 20], &[3.0, 2.0, 1.0]);
    for seed in [0, 1] {
        make_run(
            &root,
            &format!("none-{seed}"),
            config(&root, Averaging::None, seed),
            &falling,
        );
    }
    for seed in [0, 1, 2] {
        make_run(
            &root,
            &format!("ema-{seed}"),
            config(&root, Averaging::Ema, seed),
            &falling,
        );
    }
    // How many checkpoints a run kept, and how often it saved them, change
    // nothing it computed: such a run is one more seed, not a variant.
    let mut kept_more = config(&root, Averaging::Ema, 7);
    kept_more.checkpoint.keep = 50;
    kept_more.checkpoint.interval_steps = 25;
    make_run(&root, "ema-7", kept_more, &falling);
    let variants = group(load_runs(std::slice::from_ref(&root)).unwrap());
    let labels: Vec<(&str, Vec<u64>)> = variants
        .iter()
        .map(|v| (v.label.as_str(), v.seeds()))
        .collect();
    assert_eq!(
        labels,
        [
            ("averaging=ema", vec![0, 1, 2, 7]),
            ("averaging=none", vec![0, 1])
        ]
    );

    // A second setting that differs joins the label, and splits the group.
    let mut faster = config(&root, Averaging::Ema, 3);
    faster.rnad.learning_rate = 0.01;
    make_run(&root, "ema-fast", faster, &falling);
    let variants = group(load_runs(&[root]).unwrap());
    let labels: Vec<&str> = variants.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "averaging=ema, learning_rate=0.0003",
            "averaging=ema, learning_rate=0.01",
            "averaging=none, learning_rate=0.0003"
        ]
    );
}

/// A staged schedule: from step 300 a larger batch, a fifth of the rate
/// and a slower θ_reg roll (six settings apart from the flat config).
fn staged(root: &Path, seed: u64) -> Config {
    let mut config = config(root, Averaging::Ema, seed);
    config.rnad.late_batch_start_step = 300;
    config.rnad.late_batch_size = 512;
    config.rnad.learning_rate_decay_start_step = 300;
    config.rnad.learning_rate_decay_steps = 1;
    config.rnad.learning_rate_final_fraction = 0.2;
    config.rnad.entropy_schedule_size = vec![200, 1000];
    config.rnad.entropy_schedule_repeats = vec![2, 1];
    config
}

#[test]
fn variants_with_long_settings_are_labelled_by_their_directories() {
    let root = scratch("long-settings");
    let falling = entries(&[0, 10, 20], &[3.0, 2.0, 1.0]);
    for seed in [0, 1] {
        make_run(
            &root.join("flat"),
            &format!("seed-{seed}"),
            config(&root, Averaging::Ema, seed),
            &falling,
        );
        make_run(
            &root.join("staged"),
            &format!("seed-{seed}"),
            staged(&root, seed),
            &falling,
        );
    }
    let variants = group(load_runs(std::slice::from_ref(&root)).unwrap());
    let labels: Vec<(&str, Vec<u64>)> = variants
        .iter()
        .map(|v| (v.label.as_str(), v.seeds()))
        .collect();
    assert_eq!(labels, [("flat", vec![0, 1]), ("staged", vec![0, 1])]);
    // The settings still say what tells them apart.
    assert_eq!(
        variants[1].settings,
        "averaging=ema, entropy_schedule_repeats=[2, 1], entropy_schedule_size=[200, 1000], \
         late_batch_size=512, late_batch_start_step=300, learning_rate_decay_start_step=300, \
         learning_rate_decay_steps=1, learning_rate_final_fraction=0.2"
    );
    let svg = root.join("figure.svg");
    let report = plot_command(&root, &svg, &["--kind", "target", "--kind", "reg"]).unwrap();
    assert!(
        report.contains(&format!(
            "  staged ({}): seeds [0, 1]",
            variants[1].settings
        )),
        "{report}"
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("staged, reg (mean and min–max of 2 seeds)"));
    assert!(
        !text.contains("late_batch_size"),
        "no settings in the legend"
    );

    // Directories that do not tell the variants apart leave the settings
    // as the labels, however long: here a flat and a staged seed share one.
    let mixed = scratch("long-settings-one-directory");
    make_run(
        &mixed,
        "flat-0",
        config(&mixed, Averaging::Ema, 0),
        &falling,
    );
    make_run(&mixed, "staged-0", staged(&mixed, 0), &falling);
    let variants = group(load_runs(std::slice::from_ref(&mixed)).unwrap());
    assert_eq!(variants.len(), 2);
    for variant in &variants {
        assert_eq!(variant.label, variant.settings);
    }
    assert!(variants[1].label.contains("late_batch_size=512"));
}

#[test]
fn band_is_mean_min_and_max_over_seeds_on_the_common_range() {
    let root = scratch("band");
    // Seed 0 evaluated every 10 steps to 30; seed 1 every 20 steps to 40.
    let a = make_run(
        &root,
        "a",
        config(&root, Averaging::Ema, 0),
        &entries(&[0, 10, 20, 30], &[4.0, 3.0, 2.0, 1.0]),
    );
    let b = make_run(
        &root,
        "b",
        config(&root, Averaging::Ema, 1),
        &entries(&[0, 20, 40], &[6.0, 2.0, 0.0]),
    );
    let runs = vec![load_run(&a).unwrap(), load_run(&b).unwrap()];
    let target = band(&runs, &Measure::NashConv(PolicyKind::Target), Axis::Steps);
    // x = 10: seed 1 interpolated halfway between 6 and 2 → 4; seed 0 is 3.
    // x = 30: seed 1 halfway between 2 and 0 → 1; seed 0 is 1.
    // Step 40 is beyond seed 0's range, so the band stops at 30.
    assert_eq!(target.x, [0.0, 10.0, 20.0, 30.0]);
    assert_eq!(target.mean, [5.0, 3.5, 2.0, 1.0]);
    assert_eq!(target.min, [4.0, 3.0, 2.0, 1.0]);
    assert_eq!(target.max, [6.0, 4.0, 2.0, 1.0]);
    let reg = band(&runs, &Measure::NashConv(PolicyKind::Reg), Axis::Steps);
    assert_eq!(reg.mean, [7.0, 5.5, 4.0, 3.0], "reg is target + 2 here");
    let wall = band(&runs, &Measure::NashConv(PolicyKind::Target), Axis::Wall);
    assert_eq!(wall.x, [0.0, 0.1, 0.2, 0.3], "wall time is step / 100 here");
    let decisions = band(
        &runs,
        &Measure::NashConv(PolicyKind::Target),
        Axis::Decisions,
    );
    assert_eq!(
        decisions.x,
        [0.0, 100.0, 200.0, 300.0],
        "decisions are step × 10 here"
    );
    assert_eq!(decisions.mean, target.mean);
}

/// Evaluations with a match against the heuristic player and an LBR run,
/// each with its logged interval: (step, mean, ci95, mbb, ci95_mbb).
fn measured(points: &[(u64, f64, f64, f64, f64)]) -> Vec<HistoryEntry> {
    points
        .iter()
        .map(|&(step, mean, ci95, mbb, ci95_mbb)| HistoryEntry {
            learner_step: step,
            wall_seconds: step as f64,
            decisions: step,
            nash_conv: None,
            head_to_head: vec![HeadToHead {
                opponent: "heuristic".into(),
                opponent_step: None,
                mean,
                ci95,
                deals: 500,
            }],
            lbr: Some(LocalBestResponse {
                bets: "fcpa".into(),
                hands: 100,
                mbb_per_hand: mbb,
                ci95_mbb,
            }),
        })
        .collect()
}

#[test]
fn one_seed_draws_its_logged_interval_and_several_seeds_their_spread() {
    let root = scratch("interval");
    let a = make_run(
        &root,
        "a",
        config(&root, Averaging::Ema, 0),
        &measured(&[(0, -1.0, 0.5, 900.0, 300.0), (10, 2.0, 0.25, 100.0, 50.0)]),
    );
    let b = make_run(
        &root,
        "b",
        config(&root, Averaging::Ema, 1),
        &measured(&[(0, 1.0, 0.5, 500.0, 300.0), (10, 3.0, 0.25, 300.0, 50.0)]),
    );
    let one = vec![load_run(&a).unwrap()];
    let matches = Measure::Column("head_to_head.heuristic.mean".into());
    let alone = band(&one, &matches, Axis::Steps);
    assert_eq!(alone.edges, BandEdges::Interval95);
    assert_eq!(alone.mean, [-1.0, 2.0]);
    assert_eq!(alone.min, [-1.5, 1.75]);
    assert_eq!(alone.max, [-0.5, 2.25]);
    let lbr = band(
        &one,
        &Measure::Column("lbr.mbb_per_hand".into()),
        Axis::Steps,
    );
    assert_eq!(lbr.edges, BandEdges::Interval95);
    assert_eq!((lbr.min, lbr.max), (vec![600.0, 50.0], vec![1200.0, 150.0]));
    // A column with no interval beside it keeps the (empty) seed spread.
    let deals = band(
        &one,
        &Measure::Column("head_to_head.0.deals".into()),
        Axis::Steps,
    );
    assert_eq!(deals.edges, BandEdges::Seeds);
    assert_eq!(deals.min, deals.max);
    // Two seeds: the band is their spread, not either's interval.
    let both = vec![load_run(&a).unwrap(), load_run(&b).unwrap()];
    let spread = band(&both, &matches, Axis::Steps);
    assert_eq!(spread.edges, BandEdges::Seeds);
    assert_eq!(spread.mean, [0.0, 2.5]);
    assert_eq!((spread.min, spread.max), (vec![-1.0, 2.0], vec![1.0, 3.0]));
}

#[test]
fn summary_figures_match_a_hand_computation() {
    let root = scratch("summary");
    let steps: Vec<u64> = (0..20).map(|i| i * 100).collect();
    // 20 evaluations: the last 10% is the last two.
    let mut first: Vec<f64> = vec![5.0; 18];
    first.extend([1.0, 3.0]);
    let mut second: Vec<f64> = vec![4.0; 17];
    second.extend([0.5, 2.0, 2.0]);
    let a = make_run(
        &root,
        "a",
        config(&root, Averaging::Am, 0),
        &entries(&steps, &first),
    );
    let b = make_run(
        &root,
        "b",
        config(&root, Averaging::Am, 1),
        &entries(&steps, &second),
    );
    let variants = group(vec![load_run(&a).unwrap(), load_run(&b).unwrap()]);
    let stats = variant_stats(&variants[0].runs, PolicyKind::Target).unwrap();
    assert_eq!(stats.seeds, 2);
    assert_eq!(stats.last_step, 1900);
    assert!(close(stats.last.mean, 2.5) && stats.last.min == 2.0 && stats.last.max == 3.0);
    assert_eq!(stats.best, 0.5, "seed 1 touched 0.5 at step 1700");
    // Tails: seed 0 [1, 3] mean 2 std 1; seed 1 [2, 2] mean 2 std 0.
    assert!(close(stats.tail_mean, 2.0), "{stats:?}");
    assert!(close(stats.tail_std, 0.5), "{stats:?}");

    let csv = summary_csv(&variants);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], CSV_HEADER);
    // Every kind but the averaged network, which these runs did not train.
    let recorded: Vec<_> = PolicyKind::ALL
        .into_iter()
        .filter(|&kind| kind != PolicyKind::AverageNetwork)
        .collect();
    assert_eq!(lines.len(), 1 + recorded.len());
    assert_eq!(lines[2], "\"averaging=am\",target,2,1900,2.5,2,3,0.5,2,0.5");
    assert!(lines[4].starts_with("\"averaging=am\",reg,2,1900,4.5,4,5,2.5,"));
    let md = summary_markdown(&variants, "Test sweep");
    assert!(md.starts_with("# Test sweep\n"), "{md}");
    assert!(
        md.contains(
            "| averaging=am | 2 | 1900 | 2.5000 | 2.0000–3.0000 | 0.5000 | 2.0000 | 0.5000 |"
        ),
        "{md}"
    );
    for kind in recorded {
        assert!(md.contains(&format!("\n## {}\n", kind.name())), "{md}");
    }
    assert!(!md.contains("## average_network"), "{md}");
    assert!(lines[5].starts_with("\"averaging=am\",target_average,2,1900,5.5,5,6,3.5,"));

    // A seed without the average (its config kept none) leaves the variant
    // without a target_average row instead of a summary of the other seeds.
    let c = make_run(
        &root,
        "c",
        config(&root, Averaging::Am, 2),
        &entries_averaged(&steps, &second, false),
    );
    let runs = vec![load_run(&a).unwrap(), load_run(&c).unwrap()];
    let variants = group(runs);
    assert!(variant_stats(&variants[0].runs, PolicyKind::TargetAverage).is_none());
    assert!(variant_stats(&variants[0].runs, PolicyKind::Reg).is_some());
    let csv = summary_csv(&variants);
    assert_eq!(
        csv.lines().count(),
        1 + PolicyKind::OF_PARAMETERS.len(),
        "{csv}"
    );
    assert!(!summary_markdown(&variants, "Test sweep").contains("## target_average"));
}

#[test]
fn a_history_that_went_back_keeps_the_lines_of_the_resumed_steps() {
    let root = scratch("went_back");
    let ema = config(&root, Averaging::Ema, 0);
    // A run that went back to an older checkpoint at step 5: the lines at
    // 10 and 15 are of the abandoned steps (an evaluator finished them
    // after the learner cut its history back); the resumed run's own
    // evaluation at 10 replaces the abandoned one.
    let resumed = make_run(
        &root,
        "resumed",
        ema.clone(),
        &entries(&[0, 10, 15, 5, 10, 20], &[3.0, 2.0, 1.8, 1.0, 1.5, 0.5]),
    );
    let steps: Vec<u64> = load_run(&resumed)
        .unwrap()
        .history
        .iter()
        .map(|e| e.learner_step)
        .collect();
    assert_eq!(steps, [0, 5, 10, 20]);
    let values: Vec<f64> = load_run(&resumed)
        .unwrap()
        .history
        .iter()
        .map(|e| e.nash_conv.as_ref().unwrap().target)
        .collect();
    assert_eq!(
        values,
        [3.0, 1.0, 1.5, 0.5],
        "the resumed run's own line at 10"
    );
    // The binary plots it and prints its tables, saying which lines the
    // later ones superseded, and leaves the file as it was.
    let before = std::fs::read(resumed.join("history.jsonl")).unwrap();
    let figure = root.join("went_back.png");
    for args in [
        vec![
            "plot",
            "--runs",
            resumed.to_str().unwrap(),
            "--out",
            figure.to_str().unwrap(),
        ],
        vec!["history", resumed.to_str().unwrap(), "--kind", "target"],
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_rnad-evaluator"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{args:?}: {stderr}");
        assert!(
            stderr.contains("history.jsonl:4: learner_step 5 supersedes 2 earlier line(s)"),
            "{args:?}: {stderr}"
        );
    }
    assert!(figure.exists());
    assert_eq!(
        std::fs::read(resumed.join("history.jsonl")).unwrap(),
        before
    );
}

#[test]
fn gzipped_logs_read_as_the_plain_ones() {
    use std::io::Write;
    let root = scratch("gzipped");
    let plain = make_run(
        &root,
        "plain",
        config(&root, Averaging::Ema, 0),
        &entries(&[0, 10, 20], &[3.0, 2.0, 1.0]),
    );
    std::fs::write(
        plain.join("training.jsonl"),
        "{\"learner_step\":10,\"loss_value\":0.5}\n",
    )
    .unwrap();
    let zipped = root.join("zipped");
    std::fs::create_dir_all(&zipped).unwrap();
    std::fs::copy(plain.join("config.toml"), zipped.join("config.toml")).unwrap();
    for log in ["history.jsonl", "training.jsonl"] {
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(zipped.join(format!("{log}.gz"))).unwrap(),
            flate2::Compression::best(),
        );
        gz.write_all(&std::fs::read(plain.join(log)).unwrap())
            .unwrap();
        gz.finish().unwrap();
    }
    let (a, b) = (load_run(&plain).unwrap(), load_run(&zipped).unwrap());
    assert_eq!(a.history, b.history);
    assert_eq!(a.training, b.training);
    assert_eq!(b.training.len(), 1);
}

#[test]
fn unusable_runs_are_named_in_the_error() {
    let root = scratch("unusable");
    let good = entries(&[0, 10], &[2.0, 1.0]);
    let ema = config(&root, Averaging::Ema, 0);

    let malformed = make_run(&root, "malformed", ema.clone(), &good);
    let history = malformed.join("history.jsonl");
    let mut text = std::fs::read_to_string(&history).unwrap();
    text.push_str("{\"learner_step\": 20, \"nash_conv\": 1.0}\n");
    std::fs::write(&history, text).unwrap();
    let err = load_run(&malformed).unwrap_err().to_string();
    assert!(err.contains("malformed/history.jsonl:3"), "{err}");

    let missing = make_run(&root, "missing", ema.clone(), &[]);
    let err = load_run(&missing).unwrap_err().to_string();
    assert!(err.contains("missing/history.jsonl"), "{err}");

    let empty = make_run(&root, "empty", ema.clone(), &[]);
    std::fs::write(empty.join("history.jsonl"), "\n").unwrap();
    let err = load_run(&empty).unwrap_err().to_string();
    assert!(
        err.contains("empty/history.jsonl") && err.contains("no evaluations"),
        "{err}"
    );

    let head_to_head: Vec<HistoryEntry> = good
        .iter()
        .map(|e| HistoryEntry {
            nash_conv: None,
            head_to_head: vec![HeadToHead {
                opponent: "uniform".into(),
                opponent_step: None,
                mean: 0.5,
                ci95: 0.1,
                deals: 100,
            }],
            ..e.clone()
        })
        .collect();
    // A head-to-head run reads, and draws as columns, not as NashConv.
    let panel_only = make_run(&root, "panel-only", ema.clone(), &head_to_head);
    assert_eq!(load_run(&panel_only).unwrap().history.len(), good.len());
    let figure = root.join("panel.svg");
    let err = plot_command(&panel_only, &figure, &[]).unwrap_err();
    assert!(
        err.contains("no numeric values of `NashConv (target)`"),
        "{err}"
    );
    let mut report = Vec::new();
    let err = Cli::try_parse_from(["rnad-evaluator", "history", panel_only.to_str().unwrap()])
        .unwrap()
        .run(&mut report)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no exact evaluations"), "{err}");
    plot_command(
        &panel_only,
        &figure,
        &["--metric", "head_to_head.uniform.mean"],
    )
    .unwrap();
    assert!(std::fs::read_to_string(&figure).unwrap().contains("<svg"));

    let bad_config = make_run(&root, "bad-config", ema.clone(), &good);
    std::fs::write(bad_config.join("config.toml"), "game = \"chess\"\n").unwrap();
    let err = load_run(&bad_config).unwrap_err().to_string();
    assert!(err.contains("bad-config/config.toml"), "{err}");

    let nothing = scratch("unusable-nothing");
    let err = load_runs(&[nothing]).unwrap_err().to_string();
    assert!(
        err.contains("unusable-nothing") && err.contains("no run directory"),
        "{err}"
    );

    let mixed = scratch("mixed");
    make_run(&mixed, "kuhn", ema.clone(), &good);
    let mut leduc = ema;
    leduc.game = "leduc_poker".parse().unwrap();
    make_run(&mixed, "leduc", leduc, &good);
    let err = load_runs(&[mixed]).unwrap_err().to_string();
    assert!(
        err.contains("different games") && err.contains("mixed/leduc"),
        "{err}"
    );

    // Through the command: the figure is not written.
    let out = root.join("figure.png");
    let err = plot_command(&root.join("malformed"), &out, &[]).unwrap_err();
    assert!(err.contains("malformed/history.jsonl:3"), "{err}");
    assert!(!out.exists());
}

/// `rnad-evaluator plot --runs RUNS --out OUT EXTRA...` as the binary runs
/// it: its report, or its error as text.
fn plot_command(runs: &Path, out: &Path, extra: &[&str]) -> Result<String, String> {
    let mut args = vec![
        "rnad-evaluator",
        "plot",
        "--runs",
        runs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut report = Vec::new();
    Cli::try_parse_from(args)
        .map_err(|e| e.to_string())?
        .run(&mut report)
        .map_err(|e| e.to_string())?;
    Ok(String::from_utf8(report).unwrap())
}

/// Pixels of a figure exactly of one colour.
fn count_colour(png: &Path, rgb: (u8, u8, u8)) -> usize {
    let pixmap = resvg::tiny_skia::Pixmap::load_png(png).unwrap();
    pixmap
        .pixels()
        .iter()
        .filter(|p| (p.red(), p.green(), p.blue()) == rgb && p.alpha() == 255)
        .count()
}

#[test]
fn plot_draws_each_variant_as_png_and_svg() {
    let root = scratch("plot");
    let steps = [0, 100, 200, 300, 400];
    let curves = [
        ("ema", Averaging::Ema, [4.0, 2.0, 1.0, 0.5, 0.25]),
        ("none", Averaging::None, [4.0, 3.0, 2.5, 2.0, 1.5]),
    ];
    for (seed, shift) in [(0, 0.0), (1, 0.2), (2, 0.4)] {
        for (name, averaging, curve) in curves {
            let values: Vec<f64> = curve.iter().map(|v| v + shift).collect();
            make_run(
                &root,
                &format!("{name}-{seed}"),
                config(&root, averaging, seed),
                &entries(&steps, &values),
            );
        }
    }
    let png = root.join("figure.png");
    let report = plot_command(&root, &png, &["--log-y"]).unwrap();
    assert!(report.contains("6 runs in 2 variants"), "{report}");
    assert!(
        report.contains("averaging=ema: seeds [0, 1, 2]"),
        "{report}"
    );

    let pixmap = resvg::tiny_skia::Pixmap::load_png(&png).unwrap();
    assert_eq!((pixmap.width(), pixmap.height()), (1200, 750));
    // Each variant's line is drawn in its own colour (blue, then vermilion).
    assert!(count_colour(&png, (0, 114, 178)) > 500, "the ema line");
    assert!(count_colour(&png, (213, 94, 0)) > 500, "the none line");
    // Text was rendered (the bundled font): many dark grey-to-black pixels
    // beyond the lines and axes alone would be few.
    assert!(count_colour(&png, (0, 0, 0)) > 1000, "text and axes");

    let svg = root.join("figure.svg");
    plot_command(&root, &svg, &["--x", "wall", "--kind", "reg"]).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..40]);
    for label in [
        "averaging=ema (mean and min–max of 3 seeds)",
        "averaging=none (mean and min–max of 3 seeds)",
        "training wall time (s)",
        "NashConv (reg)",
    ] {
        assert!(text.contains(label), "the figure names {label:?}");
    }

    // Two kinds: a line per variant and kind, each in its own colour, the
    // axis plain NashConv.
    let kinds = root.join("kinds.svg");
    plot_command(
        &root,
        &kinds,
        &["--kind", "target", "--kind", "target_average"],
    )
    .unwrap();
    let text = std::fs::read_to_string(&kinds).unwrap();
    for label in [
        "averaging=ema, target (mean and min–max of 3 seeds)",
        "averaging=ema, target_average (mean and min–max of 3 seeds)",
        "averaging=none, target (mean and min–max of 3 seeds)",
        "averaging=none, target_average (mean and min–max of 3 seeds)",
        "NashConv of the target, target_average policies",
    ] {
        assert!(text.contains(label), "the figure names {label:?}");
    }
    assert!(
        !text.contains("NashConv (target)"),
        "the axis names no one kind"
    );
    let colours = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"];
    for colour in colours {
        assert!(text.contains(colour), "a line in {colour}");
    }

    // A kind given twice is one line, its axis named by it.
    plot_command(&root, &kinds, &["--kind", "reg", "--kind", "reg"]).unwrap();
    let text = std::fs::read_to_string(&kinds).unwrap();
    assert!(
        text.contains("NashConv (reg)"),
        "one kind, named on the axis"
    );
    assert!(!text.contains("#009E73"), "no third line");
    // A logged column is drawn alone, never beside policy kinds.
    let err =
        plot_command(&root, &kinds, &["--metric", "loss_value", "--kind", "reg"]).unwrap_err();
    assert!(err.contains("--metric") && err.contains("--kind"), "{err}");

    let err = plot_command(&root, Path::new("figure.pdf"), &[]).unwrap_err();
    assert!(
        err.contains("figure.pdf") && err.contains(".png or .svg"),
        "{err}"
    );
}
