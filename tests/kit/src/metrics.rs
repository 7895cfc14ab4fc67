//! Reading a process's `/metrics` page as Prometheus serves it.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::time::Duration;

/// The text of `http://127.0.0.1:port/metrics`, or `None` if nobody answers.
pub fn scrape(port: u16) -> Option<String> {
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}

/// The value of an unlabelled sample `name` in a scrape.
pub fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
}

/// The value of `name{labels}` in a scrape (labels as written, e.g.
/// `policy="target"`).
pub fn labelled(text: &str, name: &str, labels: &str) -> Option<f64> {
    let prefix = format!("{name}{{{labels}}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|v| v.trim().parse().ok())
}

/// The sample names of a Prometheus text page (histograms' `_bucket`,
/// `_sum` and `_count` included).
pub fn sample_names(page: &str) -> std::collections::BTreeSet<String> {
    page.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split(['{', ' ']).next())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "# HELP rnad_learner_step Step.\n# TYPE rnad_learner_step gauge\nrnad_learner_step 42\nrnad_evaluator_nash_conv{policy=\"target\"} 0.5\nrnad_learner_step_seconds_count 7\n";

    #[test]
    fn samples_are_read_by_name_and_by_labels() {
        assert_eq!(sample(PAGE, "rnad_learner_step"), Some(42.0));
        assert_eq!(sample(PAGE, "rnad_learner_step_seconds_count"), Some(7.0));
        assert_eq!(sample(PAGE, "rnad_missing"), None);
        assert_eq!(
            labelled(PAGE, "rnad_evaluator_nash_conv", "policy=\"target\""),
            Some(0.5)
        );
        assert_eq!(
            labelled(PAGE, "rnad_evaluator_nash_conv", "policy=\"reg\""),
            None
        );
        let names: Vec<String> = sample_names(PAGE).into_iter().collect();
        assert_eq!(
            names,
            [
                "rnad_evaluator_nash_conv",
                "rnad_learner_step",
                "rnad_learner_step_seconds_count"
            ]
        );
    }
}
