//! Static checks of the Docker deployment with the tools that read these
//! files for real: Debian's `docker-compose config` (on the compose file
//! and on the swarm stack), `promtool check
//! config` and `promtool test rules` on the alerts, hadolint on the
//! Dockerfiles, and the Grafana dashboard against
//! the JSON schema generated from Grafana's published types
//! (`@grafana/schema`). A fresh machine has none of these tools, so the
//! tests are set apart (`#[ignore]`, with the reason cargo prints):
//! `docker/install-check-tools.sh` installs the tools and `cargo test
//! --workspace --release -- --ignored` runs them (`.ci/run` does both).
//! That the dashboard's queries read only exported metrics is checked
//! against live processes in `distributed.rs`.

use std::path::PathBuf;
use std::process::{Command, Output};

use rnad_testkit::workspace;
use rnad_tests::manifests::documents;

fn run(program: &str, args: &[&str], envs: &[(&str, &str)]) -> Output {
    Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(workspace())
        .output()
        .unwrap_or_else(|e| {
            panic!("{program} cannot be run ({e}): run docker/install-check-tools.sh (CI does)")
        })
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

const COMPOSE: &str = "docker/docker-compose.yml";

#[test]
#[ignore = "needs docker-compose: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn compose_file_is_valid_and_needs_the_grafana_password() {
    let output = run(
        "docker-compose",
        &["-f", COMPOSE, "config", "-q"],
        &[("GRAFANA_ADMIN_PASSWORD", "secret")],
    );
    assert!(output.status.success(), "{}", text(&output));

    let output = run(
        "docker-compose",
        &["-f", COMPOSE, "config"],
        &[("GRAFANA_ADMIN_PASSWORD", "secret"), ("ACTORS", "5")],
    );
    let resolved = text(&output);
    assert!(output.status.success(), "{resolved}");
    assert!(resolved.contains("replicas: 5"), "{resolved}");
    assert!(
        !resolved.contains("container_name"),
        "scalable services have no fixed names"
    );

    let output = Command::new("docker-compose")
        .args(["-f", COMPOSE, "config", "-q"])
        .env_remove("GRAFANA_ADMIN_PASSWORD")
        .current_dir(workspace())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        text(&output).contains("GRAFANA_ADMIN_PASSWORD"),
        "{}",
        text(&output)
    );
}

const SWARM: &str = "docker/swarm-stack.yml";

/// The swarm stack as docker-compose resolves it (anchors merged,
/// variables filled in), with `extra` files on top.
fn resolved_swarm_stack(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["-f", SWARM];
    for file in extra {
        args.extend(["-f", file]);
    }
    args.push("config");
    let output = run(
        "docker-compose",
        &args,
        &[("GRAFANA_ADMIN_PASSWORD", "secret")],
    );
    assert!(output.status.success(), "{}", text(&output));
    documents(&String::from_utf8(output.stdout).unwrap()).remove(0)
}

/// The swarm stack publishes nothing, pins the learner and the evaluator
/// (and the services with volumes) to the runs node, encrypts its overlay
/// network, and hands every rnad process the token as a Docker secret; the
/// publishing addition opens Grafana alone, in host mode.
#[test]
#[ignore = "needs docker-compose: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn swarm_stack_publishes_nothing_pins_the_run_and_encrypts() {
    let stack = resolved_swarm_stack(&[]);
    let services = stack["services"].as_object().unwrap();
    assert_eq!(services.len(), 5, "{services:?}");
    for (name, service) in services {
        assert!(
            service["ports"].is_null(),
            "{name} publishes {}",
            service["ports"]
        );
        assert_eq!(service["deploy"]["endpoint_mode"], "dnsrr", "{name}");
        let pinned = service["deploy"]["placement"]["constraints"]
            .as_array()
            .is_some_and(|c| c.contains(&"node.labels.rnad.runs == true".into()));
        let has_volume = !service["volumes"].is_null();
        assert_eq!(
            pinned, has_volume,
            "{name}: pinned exactly when it keeps a volume"
        );
        let command = service["command"].to_string();
        if command.contains("rnad-") {
            assert!(
                command.contains("--token-file=/run/secrets/rnad-token"),
                "{name}: {command}"
            );
            assert_eq!(service["secrets"][0]["source"], "rnad-token", "{name}");
        }
    }
    for name in ["learner", "evaluator"] {
        assert!(
            !services[name]["volumes"].is_null(),
            "{name} keeps the runs volume"
        );
    }
    assert_eq!(
        stack["networks"]["rnad"]["driver_opts"]["encrypted"],
        "true"
    );
    assert_eq!(stack["secrets"]["rnad-token"]["external"], true);

    let published = resolved_swarm_stack(&["docker/swarm-publish.yml"]);
    for (name, service) in published["services"].as_object().unwrap() {
        if name == "grafana" {
            assert_eq!(service["ports"][0]["mode"], "host", "{}", service["ports"]);
            assert_eq!(service["ports"][0]["target"], 3000);
        } else {
            assert!(service["ports"].is_null(), "{name}");
        }
    }
}

#[test]
#[ignore = "needs promtool: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn prometheus_config_is_valid() {
    let output = run(
        "promtool",
        &["check", "config", "docker/prometheus/prometheus.yml"],
        &[],
    );
    let report = text(&output);
    assert!(output.status.success(), "{report}");
    assert!(
        report.contains("SUCCESS: 8 rules found"),
        "the alerts are loaded: {report}"
    );
}

/// Every alert stays quiet, fires and clears on synthetic series as
/// `alerts.test.yml` says.
#[test]
#[ignore = "needs promtool: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn alert_rules_pass_their_unit_tests() {
    let output = run(
        "promtool",
        &["check", "rules", "docker/prometheus/alerts.yml"],
        &[],
    );
    assert!(output.status.success(), "{}", text(&output));
    let output = run(
        "promtool",
        &["test", "rules", "docker/prometheus/alerts.test.yml"],
        &[],
    );
    let report = text(&output);
    assert!(output.status.success(), "{report}");
    assert!(report.contains("SUCCESS"), "{report}");
    let tests =
        std::fs::read_to_string(workspace().join("docker/prometheus/alerts.test.yml")).unwrap();
    let rules = std::fs::read_to_string(workspace().join("docker/prometheus/alerts.yml")).unwrap();
    for alert in rules
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- alert: "))
    {
        assert!(
            tests.contains(&format!(
                "alertname: {alert}\n    exp_alerts:\n    - exp_labels"
            )),
            "{alert} is tested firing"
        );
        assert!(
            tests.contains(&format!("alertname: {alert}\n    exp_alerts: []")),
            "{alert} is tested quiet"
        );
    }
}

#[test]
#[ignore = "needs hadolint: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn dockerfiles_have_no_hadolint_errors() {
    for dockerfile in ["docker/Dockerfile", "docker/cuda.Dockerfile"] {
        let output = run(
            "hadolint",
            &["--failure-threshold", "error", dockerfile],
            &[],
        );
        assert!(output.status.success(), "{dockerfile}: {}", text(&output));
    }
}

/// Where docker/install-check-tools.sh puts the schema tools.
fn node_tools() -> PathBuf {
    workspace().join("target/check-tools/node_modules/.bin")
}

#[test]
#[ignore = "needs the Grafana schema tools (npm): run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn dashboard_matches_grafanas_schema() {
    let tools = node_tools();
    let schema = workspace().join("target/check-tools/dashboard.schema.json");
    let output = run(
        tools.join("ts-json-schema-generator").to_str().unwrap(),
        &[
            "--path",
            "target/check-tools/node_modules/@grafana/schema/dist/types/raw/dashboard/x/types.gen.d.ts",
            "--type",
            "Dashboard",
            "--no-type-check",
            "-o",
            schema.to_str().unwrap(),
        ],
        &[],
    );
    assert!(output.status.success(), "{}", text(&output));
    let output = run(
        tools.join("ajv").to_str().unwrap(),
        &[
            "validate",
            "--spec=draft7",
            "--strict=false",
            "--all-errors",
            "-s",
            schema.to_str().unwrap(),
            "-d",
            "docker/grafana/dashboards/rnad.json",
        ],
        &[],
    );
    assert!(output.status.success(), "{}", text(&output));
}
