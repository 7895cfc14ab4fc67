//! Reading, checking and comparing configs, against the shipped files.

use super::*;
use crate::ResolvedRun;

const KUHN: &str = include_str!("../../../../configs/kuhn.toml");

fn error_for(from: &str, to: &str) -> String {
    assert!(KUHN.contains(from), "the config has {from:?}");
    Config::from_toml(&KUHN.replacen(from, to, 1), "test.toml")
        .and_then(ResolvedRun::new)
        .unwrap_err()
        .to_string()
}

#[test]
fn shipped_configs_are_valid() {
    for text in [
        KUHN,
        include_str!("../../../../configs/leduc.toml"),
        include_str!("../../../../configs/leduc-reference.toml"),
        include_str!("../../../../configs/leduc-two-stage.toml"),
        include_str!("../../../../configs/kuhn-3p.toml"),
        include_str!("../../../../configs/leduc-3p.toml"),
        include_str!("../../../../configs/liars_dice.toml"),
        include_str!("../../../../configs/holdem.toml"),
        include_str!("../../../../configs/holdem-card.toml"),
        include_str!("../../../../configs/holdem-fullgame.toml"),
        include_str!("../../../../configs/daihinmin.toml"),
    ] {
        let config = Config::from_toml(text, "shipped").unwrap();
        let again = Config::from_toml(&config.to_toml(), "round trip").unwrap();
        assert_eq!(again, config);
    }
}

/// With `network.action_groups` the network scores hold'em fullgame's
/// 13 groups, not its 5,001 actions (a raise to every amount up to the
/// 5,000-chip stack, fold and call); a game without groups refuses the
/// key (`out_of_range_values_are_refused_by_name`).
#[test]
fn action_groups_make_the_network_score_the_games_groups() {
    let text = include_str!("../../../../configs/holdem-fullgame.toml");
    let run = ResolvedRun::new(Config::from_toml(text, "fullgame").unwrap()).unwrap();
    assert_eq!(run.game().num_distinct_actions(), 5001);
    assert!(run.shape().grouped);
    assert_eq!(run.shape().actions, 13);
    let every = text.replace("action_groups = true", "action_groups = false");
    let run = ResolvedRun::new(Config::from_toml(&every, "fullgame").unwrap()).unwrap();
    assert!(!run.shape().grouped);
    assert_eq!(run.shape().actions, 5001);
}

#[test]
fn evaluation_mode_defaults_to_exact_and_names_head_to_head() {
    let config = Config::from_toml(KUHN, "kuhn").unwrap();
    assert_eq!(config.evaluation.mode, EvaluationMode::Exact);
    assert_eq!(config.evaluation.deals, 10_000);
    let text = KUHN.replacen(
        "interval_steps = 0",
        "interval_steps = 0\nmode = \"head_to_head\"\ndeals = 500",
        1,
    );
    let config = Config::from_toml(&text, "h2h").unwrap();
    assert_eq!(config.evaluation.mode, EvaluationMode::HeadToHead);
    assert_eq!(config.evaluation.deals, 500);
    assert_eq!(config.settings()["evaluation.mode"], "head_to_head");
    let err = error_for(
        "interval_steps = 0",
        "interval_steps = 0\nmode = \"sampled\"",
    );
    assert!(
        err.contains("sampled") && err.contains("head_to_head"),
        "{err}"
    );
}

#[test]
fn settings_are_flat_dotted_keys() {
    let config = Config::from_toml(KUHN, "kuhn").unwrap();
    let settings = config.settings();
    assert_eq!(settings["game"], "kuhn_poker");
    assert_eq!(settings["rnad.averaging"], "ema");
    assert_eq!(settings["network.hidden"], "[64, 64]");
    assert_eq!(settings["actors.lockstep"], "false");
    assert!(!settings.contains_key("rnad"), "tables are not leaves");
}

#[test]
fn changes_name_every_differing_key_and_whether_it_changes_the_experiment() {
    let recorded = Config::from_toml(KUHN, "kuhn").unwrap();
    assert!(recorded.changes_from(&recorded).is_empty());
    let mut restarted = recorded.clone();
    restarted.rnad.learning_rate *= 2.0;
    restarted.checkpoint.keep += 1;
    restarted.run_dir = "elsewhere".into();
    let changes = restarted.changes_from(&recorded);
    let keys: Vec<&str> = changes.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(keys, ["checkpoint.keep", "rnad.learning_rate", "run_dir"]);
    let learning_rate = &changes[1];
    assert_eq!(
        (learning_rate.from.as_str(), learning_rate.to.as_str()),
        ("0.0003", "0.0006")
    );
    assert_eq!(
        learning_rate.to_string(),
        "rnad.learning_rate = 0.0003 -> 0.0006"
    );
    let experiment: Vec<bool> = changes.iter().map(|c| c.changes_experiment()).collect();
    assert_eq!(experiment, [false, true, false]);
}

#[test]
fn the_learning_rate_decay_is_optional_and_read_when_given() {
    let constant = Config::from_toml(KUHN, "test.toml").unwrap();
    assert_eq!(constant.rnad.learning_rate_decay_steps, 0);
    assert_eq!(constant.rnad.learning_rate_decay_start_step, 0);
    assert_eq!(constant.rnad.learning_rate_final_fraction, 1.0);
    let decaying = KUHN.replacen(
        "learning_rate = 3e-4",
        "learning_rate = 3e-4\nlearning_rate_decay_steps = 5000\nlearning_rate_final_fraction = 0.1",
        1,
    );
    let decaying = Config::from_toml(&decaying, "test.toml").unwrap();
    assert_eq!(decaying.rnad.learning_rate_decay_steps, 5000);
    assert_eq!(decaying.rnad.learning_rate_decay_start_step, 0);
    assert_eq!(decaying.rnad.learning_rate_final_fraction, 0.1);
    let keys: Vec<String> = decaying
        .changes_from(&constant)
        .iter()
        .map(|c| c.key.clone())
        .collect();
    assert_eq!(
        keys,
        [
            "rnad.learning_rate_decay_steps",
            "rnad.learning_rate_final_fraction"
        ]
    );
}

#[test]
fn a_late_decay_is_read_and_a_start_without_a_decay_is_refused() {
    let late = KUHN.replacen(
        "learning_rate = 3e-4",
        "learning_rate = 3e-4\nlearning_rate_decay_start_step = 100000\nlearning_rate_decay_steps = 400000\nlearning_rate_final_fraction = 0.2",
        1,
    );
    let late = Config::from_toml(&late, "test.toml").unwrap();
    assert_eq!(late.rnad.learning_rate_decay_start_step, 100_000);
    let err = error_for(
        "learning_rate = 3e-4",
        "learning_rate = 3e-4\nlearning_rate_decay_start_step = 100000",
    );
    assert!(
        err.contains("rnad.learning_rate_decay_start_step") && err.contains("100000"),
        "{err}"
    );
}

#[test]
fn weight_decay_is_off_unless_given_and_must_not_flip_a_weight() {
    let constant = Config::from_toml(KUHN, "test.toml").unwrap();
    assert_eq!(constant.rnad.weight_decay, 0.0);
    let decaying = KUHN.replacen(
        "learning_rate = 3e-4",
        "learning_rate = 3e-4\nweight_decay = 0.01",
        1,
    );
    let decaying = Config::from_toml(&decaying, "test.toml").unwrap();
    assert_eq!(decaying.rnad.weight_decay, 0.01);
    let negative = error_for(
        "learning_rate = 3e-4",
        "learning_rate = 3e-4\nweight_decay = -1",
    );
    assert!(negative.contains("rnad.weight_decay"), "{negative}");
    // 3e-4 · 5000 = 1.5: a step would flip every weight's sign.
    let flipping = error_for(
        "learning_rate = 3e-4",
        "learning_rate = 3e-4\nweight_decay = 5000",
    );
    assert!(
        flipping.contains("rnad.weight_decay") && flipping.contains("below 1"),
        "{flipping}"
    );
}

#[test]
fn the_own_reach_clip_is_off_unless_given_and_at_least_one_when_on() {
    let with_clip = |clip: &str| format!("{KUHN}\n[average_network]\nown_reach_clip = {clip}\n");
    let off = Config::from_toml(KUHN, "test.toml").unwrap();
    assert_eq!(off.average_network.own_reach_clip, 0.0);
    let on = Config::from_toml(&with_clip("20.0"), "test.toml").unwrap();
    assert_eq!(on.average_network.own_reach_clip, 20.0);
    // A clip below 1 would weigh every state alike: no reach in it.
    for refused in ["0.5", "-1.0", "inf"] {
        let err = Config::from_toml(&with_clip(refused), "test.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`average_network.own_reach_clip`"),
            "{refused}: {err}"
        );
    }
}

#[test]
fn a_late_batch_size_applies_from_its_step_and_needs_both_keys() {
    let constant = Config::from_toml(KUHN, "test.toml").unwrap();
    assert_eq!(constant.rnad.late_batch_start_step, 0);
    assert_eq!(constant.rnad.batch_size_after(0), 128);
    assert_eq!(constant.rnad.batch_size_after(u64::MAX), 128);
    let late = KUHN.replacen(
        "batch_size = 128",
        "batch_size = 128\nlate_batch_start_step = 300\nlate_batch_size = 512",
        1,
    );
    let late = Config::from_toml(&late, "test.toml").unwrap();
    let sizes: Vec<usize> = [0, 299, 300, 301, 1_000_000]
        .iter()
        .map(|&done| late.rnad.batch_size_after(done))
        .collect();
    assert_eq!(sizes, [128, 128, 512, 512, 512]);
    for (added, missing) in [
        ("late_batch_start_step = 300", "rnad.late_batch_size"),
        ("late_batch_size = 512", "rnad.late_batch_start_step"),
    ] {
        let err = error_for("batch_size = 128", &format!("batch_size = 128\n{added}"));
        assert!(
            err.contains(missing) && err.contains("go together"),
            "{err}"
        );
    }
}

#[test]
fn an_asynchronous_queue_must_hold_a_whole_batch() {
    // Kuhn's config: batch 128, queue 1024. Such configs still load
    // (a checkpoint may have recorded one); training refuses them.
    let training_error = |text: &str| {
        Config::from_toml(text, "test.toml")
            .unwrap()
            .validate_for_training()
            .unwrap_err()
            .to_string()
    };
    let err = training_error(&KUHN.replacen("queue_capacity = 1024", "queue_capacity = 100", 1));
    assert!(
        err.contains("actors.queue_capacity") && err.contains("(128 trajectories)"),
        "{err}"
    );
    let late = "batch_size = 128\nlate_batch_start_step = 300\nlate_batch_size = 2048";
    let err = training_error(&KUHN.replacen("batch_size = 128", late, 1));
    assert!(
        err.contains("1024 is smaller") && err.contains("(2048 trajectories)"),
        "{err}"
    );
    Config::from_toml(KUHN, "test.toml")
        .unwrap()
        .validate_for_training()
        .unwrap();
    // Lockstep runs (one actor) do not use the queue.
    let lockstep = KUHN
        .replacen("batch_size = 128", late, 1)
        .replacen("count = 2", "count = 1", 1)
        .replacen("lockstep = false", "lockstep = true", 1);
    Config::from_toml(&lockstep, "test.toml")
        .unwrap()
        .validate_for_training()
        .unwrap();
}

#[test]
fn unknown_keys_are_refused_by_name() {
    let err = error_for("eta = 0.2", "eta = 0.2\netta = 0.3");
    assert!(err.contains("etta") && err.contains("test.toml"), "{err}");
    let err = error_for("[actors]", "[actor]");
    assert!(err.contains("actor"), "{err}");
}

#[test]
fn wrong_types_are_refused_by_name() {
    let err = error_for("batch_size = 128", "batch_size = \"many\"");
    assert!(err.contains("batch_size"), "{err}");
    let err = error_for("averaging = \"ema\"", "averaging = \"median\"");
    assert!(err.contains("averaging") || err.contains("median"), "{err}");
}

#[test]
fn out_of_range_values_are_refused_by_name() {
    for (from, to, key) in [
        (
            "learning_rate = 3e-4",
            "learning_rate = -1.0",
            "rnad.learning_rate",
        ),
        (
            "gamma_target = 0.01",
            "gamma_target = 1.5",
            "rnad.gamma_target",
        ),
        (
            "learning_rate = 3e-4",
            "learning_rate = 3e-4\nlearning_rate_decay_steps = 100\nlearning_rate_final_fraction = 0",
            "rnad.learning_rate_final_fraction",
        ),
        (
            "learning_rate = 3e-4",
            "learning_rate = 3e-4\nlearning_rate_decay_steps = 100\nlearning_rate_final_fraction = 1.5",
            "rnad.learning_rate_final_fraction",
        ),
        (
            "learning_rate = 3e-4",
            "learning_rate = 3e-4\nlearning_rate_final_fraction = 0.1",
            "rnad.learning_rate_decay_steps",
        ),
        (
            "batch_size = 128",
            "batch_size = 128\ntrajectory_max = 2",
            "rnad.trajectory_max",
        ),
        (
            "entropy_schedule_repeats = [1]",
            "entropy_schedule_repeats = [1, 1]",
            "rnad.entropy_schedule_repeats",
        ),
        ("hidden = [64, 64]", "hidden = []", "network.hidden"),
        (
            "torso = \"mlp\"\nhidden = [64, 64]",
            "torso = \"residual_mlp\"\nhidden = [64, 32]",
            "network.hidden",
        ),
        (
            "torso = \"mlp\"\nhidden = [64, 64]",
            "torso = \"card_conv\"\nhidden = [8]",
            "network.hidden",
        ),
        // Kuhn's input holds no card blocks for the card torso to read.
        ("torso = \"mlp\"", "torso = \"card_conv\"", "network.torso"),
        // Nor does it group its actions.
        (
            "torso = \"mlp\"",
            "torso = \"mlp\"\naction_groups = true",
            "network.action_groups",
        ),
        ("count = 2", "count = 0", "actors.count"),
        ("lockstep = false", "lockstep = true", "actors.count"),
        ("keep = 3", "keep = 0", "checkpoint.keep"),
        (
            "interval_steps = 0",
            "interval_steps = 0\ndeals = 1",
            "evaluation.deals",
        ),
    ] {
        let err = error_for(from, to);
        assert!(err.contains(&format!("`{key}`")), "{to}: {err}");
    }
}

#[test]
fn eta_in_stake_units_follows_what_a_player_can_lose() {
    // A config without the key keeps eta in reward units.
    let resolve = |text: &str| ResolvedRun::new(Config::from_toml(text, "kuhn").unwrap()).unwrap();
    let reward = resolve(KUHN);
    assert_eq!(reward.config().rnad.eta_unit, EtaUnit::Reward);
    assert_eq!(reward.eta_in_rewards(), 0.2);
    // A Kuhn player loses at most 2: the ante and one bet.
    let in_stake = KUHN.replacen("eta = 0.2", "eta = 0.2\neta_unit = \"stake\"", 1);
    let stake = resolve(&in_stake);
    assert_eq!(stake.stake(), 2.0);
    assert_eq!(stake.eta_in_rewards(), 0.4);
    // Returns in quarters: the regularisation shrinks with them.
    let quartered = in_stake.replacen("eta = 0.2", "eta = 0.2\nreward_scale = 0.25", 1);
    let quartered = resolve(&quartered);
    assert_eq!(quartered.eta_in_rewards(), 0.1);
    let unknown = error_for("eta = 0.2", "eta = 0.2\neta_unit = \"chips\"");
    assert!(
        unknown.contains("chips") && unknown.contains("stake"),
        "{unknown}"
    );
}

#[test]
fn the_shipped_recipe_is_one_for_both_leducs_and_liars_dice() {
    let leduc = Config::from_toml(include_str!("../../../../configs/leduc.toml"), "leduc").unwrap();
    let three = include_str!("../../../../configs/leduc-3p.toml");
    let three = Config::from_toml(three, "leduc-3p").unwrap();
    let dice = include_str!("../../../../configs/liars_dice.toml");
    let dice = Config::from_toml(dice, "liars_dice").unwrap();
    // One eta per unit of stake: Leduc's 0.2 chips, in each game's own
    // payoffs. A two- or three-player Leduc player loses at most 13 chips
    // (1 ante, 2 × 2 and 2 × 4 in raises), a Liar's Dice player 1.
    for (config, stake, eta_in_rewards) in [
        (&leduc, 13.0, 0.2),
        (&three, 13.0, 0.2),
        (&dice, 1.0, 0.2 / 13.0),
    ] {
        assert_eq!(config.rnad.eta_unit, EtaUnit::Stake, "{}", config.game);
        let run = ResolvedRun::new(config.clone()).unwrap();
        assert_eq!(run.stake(), stake, "{}", config.game);
        assert_eq!(run.eta_in_rewards(), eta_in_rewards, "{}", config.game);
    }
    // Every other setting is shared but the game, the run directory and
    // Liar's Dice's NeuRD threshold (its reason is in its config).
    for (config, own) in [(&three, vec![]), (&dice, vec!["rnad.beta_neurd"])] {
        let differing: Vec<String> = config
            .changes_from(&leduc)
            .into_iter()
            .map(|change| change.key)
            .filter(|key| key != "game" && key != "run_dir")
            .collect();
        assert_eq!(differing, own, "{}", config.game);
    }
}
