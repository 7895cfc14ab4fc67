//! The cross-process tests' own helpers, above the binaries: a Kuhn
//! cluster of real processes ([`cluster`]), the deployment manifests'
//! checks, which parse every command line with the binaries' own argument
//! parsers ([`manifests`]), and the PromQL of the dashboard and alerts.
//! What every crate's tests share (scratch directories, ports, waits,
//! processes, scrapes, test configs) is [`rnad_testkit`].

pub mod cluster;
pub mod manifests;

use rnad_testkit::workspace;

/// PromQL's keywords and aggregations (which may have `by (...)` before
/// their `(`). Functions are told by the `(` after them: a metric name is
/// never followed by one.
const PROMQL_KEYWORDS: &[&str] = &[
    "and",
    "or",
    "unless",
    "offset",
    "bool",
    "sum",
    "avg",
    "min",
    "max",
    "count",
    "group",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
];

/// Keywords followed by a list of labels, not of expressions.
const PROMQL_LABEL_LISTS: &[&str] = &[
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
];

/// The metric names a PromQL expression reads: every identifier outside
/// label matchers (`{...}`), range selectors (`[...]`), strings and
/// `by`/`without` lists that is not a PromQL word.
pub fn promql_metric_names(expr: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut chars = expr.char_indices().peekable();
    let mut depth_braces = 0;
    let mut depth_brackets = 0;
    let mut grouping = false;
    let mut previous = ' ';
    while let Some((i, c)) = chars.next() {
        // A letter right after a digit is a unit (`5m`), not a name.
        let after_number = previous.is_ascii_digit();
        previous = c;
        match c {
            '{' => depth_braces += 1,
            '}' => depth_braces -= 1,
            '[' => depth_brackets += 1,
            ']' => depth_brackets -= 1,
            ')' if grouping => grouping = false,
            '"' => {
                for (_, q) in chars.by_ref() {
                    if q == '"' {
                        break;
                    }
                }
            }
            c if (c.is_ascii_alphabetic() || c == '_')
                && !after_number
                && depth_braces == 0
                && depth_brackets == 0 =>
            {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' || d == ':' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                let word = &expr[i..end];
                let called = expr[end..].trim_start().starts_with('(');
                if PROMQL_LABEL_LISTS.contains(&word) {
                    grouping = true;
                } else if !grouping && !called && !PROMQL_KEYWORDS.contains(&word) {
                    names.push(word.to_string());
                }
            }
            _ => {}
        }
    }
    names
}

/// Every PromQL expression of the Grafana dashboard.
pub fn dashboard_queries() -> Vec<String> {
    let path = workspace().join("docker/grafana/dashboards/rnad.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let dashboard: serde_json::Value = serde_json::from_str(&text).unwrap();
    dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["targets"].as_array().cloned().unwrap_or_default())
        .map(|t| t["expr"].as_str().unwrap().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promql_names_skip_functions_labels_and_ranges() {
        assert_eq!(
            promql_metric_names(
                "histogram_quantile(0.99, sum by (le) (rate(rnad_learner_policy_lag_bucket[5m])))"
            ),
            ["rnad_learner_policy_lag_bucket"]
        );
        assert_eq!(
            promql_metric_names(r#"sum(up{job="actor"}) / count(x_total{a="b c"}[1h] offset 5m)"#),
            ["up", "x_total"]
        );
        assert_eq!(
            promql_metric_names("rate(a_sum[5m]) / rate(a_count[5m])"),
            ["a_sum", "a_count"]
        );
        assert_eq!(
            promql_metric_names(
                "time() - max(b) > 1 or absent(c) unless on (job) group_left(x) d * bool e"
            ),
            ["b", "c", "d", "e"]
        );
    }
}
