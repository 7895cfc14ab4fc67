//! A sweep's summary: per variant and policy kind, the final NashConv over
//! seeds, the best reached and the late-training stability, as Markdown for
//! people and CSV for tools.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use super::group::Variant;
use rnad_run::history::PolicyKind;

use super::stats::{variant_stats, VariantStats};
use super::ExperimentError;

/// The CSV columns, in order.
pub const CSV_HEADER: &str =
    "variant,kind,seeds,last_step,final_mean,final_min,final_max,best,tail_mean,tail_std";

/// The figures of every (variant, policy kind) that every seed of the
/// variant evaluated, kind by kind.
fn rows(variants: &[Variant]) -> impl Iterator<Item = (&Variant, PolicyKind, VariantStats)> {
    PolicyKind::ALL.into_iter().flat_map(move |kind| {
        variants
            .iter()
            .filter_map(move |variant| Some((variant, kind, variant_stats(&variant.runs, kind)?)))
    })
}

/// One CSV row per (variant, policy kind), kind by kind.
pub fn summary_csv(variants: &[Variant]) -> String {
    let mut csv = format!("{CSV_HEADER}\n");
    for (variant, kind, s) in rows(variants) {
        writeln!(
            csv,
            "\"{}\",{},{},{},{},{},{},{},{},{}",
            variant.settings.replace('"', "\"\""),
            kind.name(),
            s.seeds,
            s.last_step,
            s.last.mean,
            s.last.min,
            s.last.max,
            s.best,
            s.tail_mean,
            s.tail_std
        )
        .expect("writing to a string");
    }
    csv
}

/// One Markdown table per policy kind, under `heading`.
pub fn summary_markdown(variants: &[Variant], heading: &str) -> String {
    let mut md = format!(
        "# {heading}\n\n\
         NashConv (sum over both players of the best-response gain) per variant, \
         over seeds. *final*: the last evaluation of each seed (mean, min–max); \
         *best*: the lowest value any seed reached; *last 10%*: mean and standard \
         deviation over each seed's last 10% of evaluations, averaged over seeds \
         (the standard deviation measures how much the approximation still moves).\n"
    );
    let mut table_of = None;
    for (variant, kind, s) in rows(variants) {
        if table_of != Some(kind) {
            table_of = Some(kind);
            write!(
                md,
                "\n## {}\n\n| variant | seeds | step | final mean | final min–max | best | last 10% mean | last 10% std |\n|---|---|---|---|---|---|---|---|\n",
                kind.name()
            )
            .expect("writing to a string");
        }
        writeln!(
            md,
            "| {} | {} | {} | {:.4} | {:.4}–{:.4} | {:.4} | {:.4} | {:.4} |",
            variant.settings,
            s.seeds,
            s.last_step,
            s.last.mean,
            s.last.min,
            s.last.max,
            s.best,
            s.tail_mean,
            s.tail_std
        )
        .expect("writing to a string");
    }
    md
}

/// Writes `summary.md` and `summary.csv` into `dir`; returns their paths.
pub fn write_summary(
    dir: &Path,
    variants: &[Variant],
    heading: &str,
) -> Result<(PathBuf, PathBuf), ExperimentError> {
    let md = dir.join("summary.md");
    let csv = dir.join("summary.csv");
    for (path, text) in [
        (&md, summary_markdown(variants, heading)),
        (&csv, summary_csv(variants)),
    ] {
        rnad_run::files::write_atomically(path, text.as_bytes()).map_err(|source| {
            ExperimentError::Io {
                path: path.clone(),
                source,
            }
        })?;
    }
    Ok((md, csv))
}
