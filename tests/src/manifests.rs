//! Kubernetes manifests as JSON values, and the invariants every rendering
//! of `deploy/kubernetes` (the base and each overlay) keeps: one learner,
//! its run directory on its volume and the evaluator's history in it,
//! arguments every binary's parser accepts, files on the volumes that
//! carry them, actors pointed at a service that reaches the learner, RPC
//! closed to all but actors, non-root containers with resources and
//! probes, monitors on real ports with the job labels the alerts use, the
//! alerts equal to `docker/prometheus/alerts.yml`, autoscaled Deployments
//! that leave their replica count to the autoscaler, and an Indexed Job
//! with one task per run of its sweep that retries a task stopped short of
//! its budget.
//!
//! [`problems`] returns what is wrong rather than panicking, so that a test
//! can show that each invariant catches what it is for.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::Parser;
use serde::Deserialize;
use serde_json::Value;

use rnad_testkit::{bin_dir, run_binary, workspace};

/// The documents of a YAML stream (empty ones left out).
pub fn documents(yaml: &str) -> Vec<Value> {
    serde_norway::Deserializer::from_str(yaml)
        .map(|document| Value::deserialize(document).expect("YAML the manifests can be read from"))
        .filter(|value| !value.is_null())
        .collect()
}

/// The Prometheus Operator's PrometheusRule holding the alerts of
/// `alerts` (the text of `docker/prometheus/alerts.yml`): its groups,
/// comments and all, under `spec`. Its leading comment, which speaks of
/// the compose deployment, is left out.
pub fn prometheus_rule(alerts: &str) -> String {
    let mut text = String::from(
        "# Generated from docker/prometheus/alerts.yml, the one source of the\n\
         # alerts: edit that file, then RNAD_BLESS=1 cargo test -p rnad-tests\n\
         # --test kubernetes rewrites this one.\n\
         apiVersion: monitoring.coreos.com/v1\n\
         kind: PrometheusRule\n\
         metadata:\n  name: rnad\n  namespace: rnad\n  labels:\n    app.kubernetes.io/name: rnad\n\
         spec:\n",
    );
    for line in alerts.lines().skip_while(|l| l.starts_with('#')) {
        if line.is_empty() {
            text.push('\n');
        } else {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// A pod template of a workload, with what the checks need around it.
struct Pod<'a> {
    kind: &'a str,
    name: &'a str,
    workload: &'a Value,
    spec: &'a Value,
    labels: &'a Value,
}

impl Pod<'_> {
    fn containers(&self) -> impl Iterator<Item = &Value> {
        items(&self.spec["containers"])
    }

    fn volume(&self, name: &str) -> Option<&Value> {
        items(&self.spec["volumes"]).find(|v| v["name"] == name)
    }

    /// The volume whose mount in `container` holds `path`.
    fn volume_holding(&self, container: &Value, path: &str) -> Option<&Value> {
        mount_holding(container, path)
            .and_then(|m| m["name"].as_str())
            .and_then(|v| self.volume(v))
    }

    /// The names of the volumes the workload claims for each pod.
    fn claim_templates(&self) -> BTreeSet<&str> {
        items(&self.workload["spec"]["volumeClaimTemplates"])
            .filter_map(|c| c["metadata"]["name"].as_str())
            .collect()
    }

    fn port(&self, name: &str) -> Option<u64> {
        self.containers()
            .flat_map(|c| items(&c["ports"]))
            .find(|p| p["name"] == name)
            .and_then(|p| p["containerPort"].as_u64())
    }
}

fn items(value: &Value) -> impl Iterator<Item = &Value> {
    value.as_array().into_iter().flatten()
}

fn of_kind<'a>(docs: &'a [Value], kind: &'a str) -> impl Iterator<Item = &'a Value> {
    docs.iter().filter(move |d| d["kind"] == kind)
}

fn name(doc: &Value) -> &str {
    doc["metadata"]["name"].as_str().unwrap_or("(unnamed)")
}

fn pods(docs: &[Value]) -> Vec<Pod<'_>> {
    docs.iter()
        .filter(|d| {
            matches!(
                d["kind"].as_str(),
                Some("StatefulSet" | "Deployment" | "Job")
            )
        })
        .map(|d| Pod {
            kind: d["kind"].as_str().unwrap_or_default(),
            name: name(d),
            workload: d,
            spec: &d["spec"]["template"]["spec"],
            labels: &d["spec"]["template"]["metadata"]["labels"],
        })
        .collect()
}

/// Whether a label selector's `matchLabels` all hold on `labels` (an empty
/// selector matches everything).
fn selects(selector: &Value, labels: &Value) -> bool {
    selector
        .as_object()
        .into_iter()
        .flatten()
        .all(|(key, value)| labels[key] == *value)
}

/// A container's command line, `$(VAR)` of its own environment replaced by
/// `0` (Kubernetes expands them; the sweep's index is one).
fn command_line(container: &Value) -> Vec<String> {
    let env: Vec<&str> = items(&container["env"])
        .filter_map(|e| e["name"].as_str())
        .collect();
    items(&container["command"])
        .chain(items(&container["args"]))
        .filter_map(Value::as_str)
        .map(|arg| {
            env.iter().fold(arg.to_string(), |a, var| {
                a.replace(&format!("$({var})"), "0")
            })
        })
        .collect()
}

/// The value of `--flag=VALUE` or `--flag VALUE` on a command line.
fn flag<'a>(line: &'a [String], flag: &str) -> Option<&'a str> {
    line.iter().enumerate().find_map(|(i, arg)| {
        if arg == flag {
            line.get(i + 1).map(String::as_str)
        } else {
            arg.strip_prefix(flag)
                .and_then(|rest| rest.strip_prefix('='))
        }
    })
}

/// Whether `container` runs this subcommand of an rnad binary (`serve`,
/// `watch`, `sweep`).
fn runs(container: &Value, subcommand: &str) -> bool {
    command_line(container)
        .get(1)
        .is_some_and(|a| a == subcommand)
}

/// The text of the file at `path` in the ConfigMap that `volume` mounts
/// (its key is the file's name).
fn config_map_file<'a>(docs: &'a [Value], volume: &Value, path: &str) -> Option<&'a str> {
    let key = Path::new(path).file_name()?.to_str()?;
    of_kind(docs, "ConfigMap")
        .find(|m| name(m) == volume["configMap"]["name"])
        .and_then(|m| m["data"][key].as_str())
}

/// What parsing `line` with its binary's own parser says (None: accepted).
fn parser_refusal(line: &[String]) -> Option<String> {
    let refusal = match line.first().map(String::as_str) {
        Some("rnad-learner") => rnad_learner_cli::commands::Cli::try_parse_from(line).err(),
        Some("rnad-actor") => rnad_actor::cli::Cli::try_parse_from(line).err(),
        Some("rnad-evaluator") => rnad_evaluator::commands::Cli::try_parse_from(line).err(),
        other => return Some(format!("{other:?} is none of the rnad binaries")),
    };
    refusal.map(|e| e.to_string())
}

/// The volume mount of `container` whose path holds `path`.
fn mount_holding<'a>(container: &'a Value, path: &str) -> Option<&'a Value> {
    items(&container["volumeMounts"])
        .filter(|m| {
            m["mountPath"]
                .as_str()
                .is_some_and(|mount| Path::new(path).starts_with(mount))
        })
        .max_by_key(|m| m["mountPath"].as_str().map_or(0, str::len))
}

/// Everything wrong with the rendered manifests `docs`.
pub fn problems(docs: &[Value]) -> Vec<String> {
    let mut problems = Vec::new();
    let pods = pods(docs);
    one_learner_on_its_volume(docs, &pods, &mut problems);
    for pod in &pods {
        containers_are_sound(docs, pod, &mut problems);
    }
    actors_reach_only_the_learner(docs, &pods, &mut problems);
    monitors_and_rules(docs, &pods, &mut problems);
    scalers_and_sweeps(docs, &pods, &mut problems);
    problems
}

/// One `rnad-learner serve`, in a StatefulSet of one replica, its run
/// directory on a claimed volume, and an evaluator beside it whose history
/// is the run directory's.
fn one_learner_on_its_volume(docs: &[Value], pods: &[Pod], problems: &mut Vec<String>) {
    let learners: Vec<(&Pod, &Value)> = pods
        .iter()
        .flat_map(|p| p.containers().map(move |c| (p, c)))
        .filter(|(_, c)| runs(c, "serve"))
        .collect();
    let only_jobs = pods.iter().all(|p| p.kind == "Job");
    if learners.is_empty() && only_jobs {
        // A sweep: every run is a local run of its own.
        return;
    }
    let [(pod, learner)] = learners[..] else {
        problems.push(format!(
            "{} containers run `rnad-learner serve`; exactly one must",
            learners.len()
        ));
        return;
    };
    if pod.kind != "StatefulSet" || pod.workload["spec"]["replicas"] != 1 {
        problems.push(format!(
            "the learner runs in {} {} with replicas {}, not a StatefulSet of 1",
            pod.kind, pod.name, pod.workload["spec"]["replicas"]
        ));
    }
    let scaled = of_kind(docs, "HorizontalPodAutoscaler")
        .any(|h| h["spec"]["scaleTargetRef"]["name"] == pod.name);
    if scaled {
        problems.push(format!("an autoscaler scales the learner's {}", pod.name));
    }
    let line = command_line(learner);
    let Some(run_dir) = flag(&line, "--run-dir") else {
        problems.push("the learner is given no --run-dir".into());
        return;
    };
    let mount = mount_holding(learner, run_dir);
    let claimed = mount
        .and_then(|m| m["name"].as_str())
        .is_some_and(|m| pod.claim_templates().contains(m));
    if !claimed {
        problems.push(format!(
            "the learner's run directory {run_dir} is not on a volume its StatefulSet claims"
        ));
    }
    let history = Path::new(run_dir).join("history.jsonl");
    let evaluator = pod.containers().find(|c| runs(c, "watch"));
    match evaluator {
        None => problems.push("no evaluator (`rnad-evaluator watch`) in the learner's pod".into()),
        Some(evaluator) => {
            let line = command_line(evaluator);
            if flag(&line, "--history").map(PathBuf::from) != Some(history.clone()) {
                problems.push(format!(
                    "the evaluator's --history is {:?}, not the run directory's {}",
                    flag(&line, "--history"),
                    history.display()
                ));
            }
            let same_volume =
                mount_holding(evaluator, &history.to_string_lossy()).is_some_and(|m| {
                    mount
                        .is_some_and(|l| l["name"] == m["name"] && l["mountPath"] == m["mountPath"])
                });
            if !same_volume {
                problems.push(
                    "the evaluator does not mount the learner's volume where the learner does"
                        .into(),
                );
            }
        }
    }
}

/// Arguments the binary accepts, files on the volumes meant for them,
/// configs the learner reads, non-root, resources and probes.
fn containers_are_sound(docs: &[Value], pod: &Pod, problems: &mut Vec<String>) {
    let where_ = |c: &Value| format!("{} {} container {}", pod.kind, pod.name, c["name"]);
    if pod.spec["securityContext"]["runAsNonRoot"] != true {
        problems.push(format!("{} {} may run as root", pod.kind, pod.name));
    }
    if pod.spec["automountServiceAccountToken"] != false {
        problems.push(format!(
            "{} {} mounts a service-account token",
            pod.kind, pod.name
        ));
    }
    for container in pod.containers() {
        let at = where_(container);
        let line = command_line(container);
        // This test's build has no CUDA, which the CUDA image's has: the
        // one refusal that image's binary would not make.
        let cuda_image = container["image"]
            .as_str()
            .is_some_and(|i| i.starts_with("rnad-cuda"));
        if let Some(refusal) = parser_refusal(&line) {
            if !(cuda_image && refusal.contains("this build has no CUDA support")) {
                problems.push(format!("{at}: {line:?} is refused: {refusal}"));
            }
        }
        let security = &container["securityContext"];
        if security["allowPrivilegeEscalation"] != false
            || security["readOnlyRootFilesystem"] != true
        {
            problems.push(format!(
                "{at} may escalate privileges or write its root filesystem"
            ));
        }
        let requests = &container["resources"]["requests"];
        if requests["cpu"].is_null() || requests["memory"].is_null() {
            problems.push(format!("{at} requests no CPU or no memory"));
        }
        if pod.kind != "Job" {
            let probe_port = &container["livenessProbe"]["httpGet"]["port"];
            if probe_port.as_str().and_then(|p| pod.port(p)).is_none() {
                problems.push(format!("{at} has no liveness probe on a port of its pod"));
            }
        }
        for (file_flag, volume_kind) in [("--config", "configMap"), ("--token-file", "secret")] {
            let Some(path) = flag(&line, file_flag) else {
                continue;
            };
            let volume = pod.volume_holding(container, path);
            let Some(volume) = volume.filter(|v| !v[volume_kind].is_null()) else {
                problems.push(format!(
                    "{at}: {file_flag} {path} is not on a {volume_kind} volume"
                ));
                continue;
            };
            if volume_kind == "configMap" {
                config_map_holds_a_config(docs, volume, path, &at, problems);
            }
        }
    }
}

/// The ConfigMap of `volume` is among `docs` and its file `path` is a
/// config the learner accepts.
fn config_map_holds_a_config(
    docs: &[Value],
    volume: &Value,
    path: &str,
    at: &str,
    problems: &mut Vec<String>,
) {
    match config_map_file(docs, volume, path) {
        None => problems.push(format!(
            "{at}: no ConfigMap {} with {path}",
            volume["configMap"]["name"]
        )),
        Some(text) => {
            if let Err(error) = rnad_run::config::Config::from_toml(text, path) {
                problems.push(format!("{at}: {path} is refused: {error}"));
            }
        }
    }
}

/// Actors' (and watchers' outside the learner's pod) `--learner` names a
/// service that selects the learner's pod and forwards to its RPC port,
/// and NetworkPolicies let every actor there, and no one but actors and
/// such watchers.
fn actors_reach_only_the_learner(docs: &[Value], pods: &[Pod], problems: &mut Vec<String>) {
    let Some(learner) = pods
        .iter()
        .find(|p| p.containers().any(|c| runs(c, "serve")))
    else {
        return;
    };
    let actors: Vec<&Pod> = pods
        .iter()
        .filter(|p| {
            p.containers()
                .any(|c| command_line(c).first().is_some_and(|b| b == "rnad-actor"))
        })
        .collect();
    let watchers: Vec<&Pod> = pods
        .iter()
        .filter(|p| p.name != learner.name && p.containers().any(|c| runs(c, "watch")))
        .collect();
    for actor in actors.iter().chain(&watchers) {
        for container in actor.containers() {
            let line = command_line(container);
            let Some((host, port)) = flag(&line, "--learner").and_then(|a| a.rsplit_once(':'))
            else {
                continue;
            };
            let reaches = of_kind(docs, "Service")
                .filter(|s| name(s) == host && selects(&s["spec"]["selector"], learner.labels))
                .flat_map(|s| items(&s["spec"]["ports"]))
                .any(|p| {
                    p["port"].as_u64().map(|p| p.to_string()).as_deref() == Some(port)
                        && p["targetPort"].as_str().and_then(|t| learner.port(t))
                            == learner.port("rpc")
                });
            if !reaches {
                problems.push(format!(
                    "{} {}: --learner {host}:{port} is no service port that reaches the learner's rpc port",
                    actor.kind, actor.name
                ));
            }
        }
    }
    let rpc_rules: Vec<&Value> = of_kind(docs, "NetworkPolicy")
        .filter(|p| selects(&p["spec"]["podSelector"]["matchLabels"], learner.labels))
        .flat_map(|p| items(&p["spec"]["ingress"]))
        .filter(|rule| rule["ports"].is_null() || items(&rule["ports"]).any(|p| p["port"] == "rpc"))
        .collect();
    let admits = |rule: &Value, pod: &Pod| {
        items(&rule["from"]).any(|from| selects(&from["podSelector"]["matchLabels"], pod.labels))
    };
    if rpc_rules.is_empty()
        || !actors
            .iter()
            .all(|a| rpc_rules.iter().any(|r| admits(r, a)))
    {
        problems.push("no NetworkPolicy opens the learner's rpc port to actors".into());
    }
    for watcher in &watchers {
        if !rpc_rules.iter().any(|r| admits(r, watcher)) {
            problems.push(format!(
                "no NetworkPolicy opens the learner's rpc port to {} {}",
                watcher.kind, watcher.name
            ));
        }
    }
    for rule in rpc_rules {
        let only_clients = items(&rule["from"]).count() > 0
            && items(&rule["from"]).all(|from| {
                let selector = &from["podSelector"]["matchLabels"];
                let selected: Vec<&Pod> = pods
                    .iter()
                    .filter(|p| selects(selector, p.labels))
                    .collect();
                from["namespaceSelector"].is_null()
                    && from["ipBlock"].is_null()
                    && !selector.is_null()
                    && !selected.is_empty()
                    && selected
                        .iter()
                        .all(|p| actors.iter().chain(&watchers).any(|c| c.name == p.name))
                    && (actors.iter().all(|a| selects(selector, a.labels))
                        || !selected
                            .iter()
                            .any(|p| actors.iter().any(|a| a.name == p.name)))
            });
        if !only_clients {
            problems.push(format!(
                "a NetworkPolicy rule opens the learner's rpc port to more than actors: {rule}"
            ));
        }
    }
}

/// PodMonitors scrape ports that exist and give the jobs the alerts and
/// the dashboard name; a PrometheusRule holds exactly the alerts.
fn monitors_and_rules(docs: &[Value], pods: &[Pod], problems: &mut Vec<String>) {
    let mut jobs = BTreeSet::new();
    let monitors: Vec<&Value> = of_kind(docs, "PodMonitor").collect();
    for monitor in &monitors {
        let selected: Vec<&Pod> = pods
            .iter()
            .filter(|p| selects(&monitor["spec"]["selector"]["matchLabels"], p.labels))
            .collect();
        for endpoint in items(&monitor["spec"]["podMetricsEndpoints"]) {
            let port = endpoint["port"].as_str().unwrap_or_default();
            if selected.is_empty() || selected.iter().any(|p| p.port(port).is_none()) {
                problems.push(format!(
                    "PodMonitor {}: port {port:?} is not on every pod it selects ({})",
                    name(monitor),
                    selected.len()
                ));
            }
            jobs.extend(
                items(&endpoint["relabelings"])
                    .filter(|r| r["targetLabel"] == "job")
                    .filter_map(|r| r["replacement"].as_str()),
            );
        }
    }
    if !monitors.is_empty() && jobs != BTreeSet::from(["actor", "evaluator", "learner"]) {
        problems.push(format!(
            "the PodMonitors' jobs are {jobs:?}, not actor, evaluator and learner"
        ));
    }
    for rule in of_kind(docs, "PrometheusRule") {
        let alerts_path = workspace().join("docker/prometheus/alerts.yml");
        let alerts = documents(&std::fs::read_to_string(alerts_path).unwrap());
        if rule["spec"]["groups"] != alerts[0]["groups"] {
            problems.push(format!(
                "PrometheusRule {} differs from docker/prometheus/alerts.yml",
                name(rule)
            ));
        }
    }
}

/// Autoscalers scale Deployments that exist; an Indexed Job has one task
/// per run `rnad-learner sweep --list` names for its own arguments.
fn scalers_and_sweeps(docs: &[Value], pods: &[Pod], problems: &mut Vec<String>) {
    for scaler in of_kind(docs, "HorizontalPodAutoscaler") {
        let target = &scaler["spec"]["scaleTargetRef"];
        let scaled = pods.iter().find(|p| {
            p.kind == "Deployment" && target["kind"] == "Deployment" && p.name == target["name"]
        });
        match scaled {
            None => problems.push(format!(
                "autoscaler {} scales no Deployment here: {target}",
                name(scaler)
            )),
            // A replica count in the manifest would undo the autoscaler at
            // every apply.
            Some(pod) if !pod.workload["spec"]["replicas"].is_null() => problems.push(format!(
                "Deployment {} is autoscaled but sets replicas, which every apply resets",
                pod.name
            )),
            Some(_) => {}
        }
    }
    for pod in pods.iter().filter(|p| p.kind == "Job") {
        let spec = &pod.workload["spec"];
        for container in pod.containers() {
            let line = command_line(container);
            if !runs(container, "sweep") {
                continue;
            }
            let indexed = spec["completionMode"] == "Indexed"
                && items(&container["env"]).any(|e| {
                    e["valueFrom"]["fieldRef"]["fieldPath"]
                        .as_str()
                        .is_some_and(|f| f.contains("job-completion-index"))
                        && container["args"].to_string().contains(&format!(
                            "--index=$({})",
                            e["name"].as_str().unwrap_or_default()
                        ))
                });
            if !indexed {
                problems.push(format!(
                    "Job {}: not an Indexed Job passing its index to --index",
                    pod.name
                ));
            }
            // A task stopped short of its budget exits 75; counted as a
            // failure it would use up the index's retries.
            let retried = items(&spec["podFailurePolicy"]["rules"]).any(|rule| {
                rule["action"] == "Ignore"
                    && rule["onExitCodes"]["operator"] == "In"
                    && items(&rule["onExitCodes"]["values"]).any(|v| v == 75)
            });
            if !retried {
                problems.push(format!(
                    "Job {}: no pod failure policy ignores exit 75 (a task stopped short of its budget)",
                    pod.name
                ));
            }
            let runs = sweep_runs(docs, pod, container, &line);
            if spec["completions"].as_u64() != Some(runs) {
                problems.push(format!(
                    "Job {}: completions {} but the sweep has {runs} runs",
                    pod.name, spec["completions"]
                ));
            }
        }
    }
}

/// How many runs `rnad-learner sweep --list` lists for the sweep on `line`,
/// with the config from its ConfigMap.
fn sweep_runs(docs: &[Value], pod: &Pod, container: &Value, line: &[String]) -> u64 {
    // Tests check sweeps at the same time: each call has its own folder.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = rnad_testkit::scratch(&format!(
        "manifests-{}-{}-{call}",
        pod.name,
        std::process::id()
    ));
    let config = flag(line, "--config").expect("a sweep has a config");
    let volume = pod
        .volume_holding(container, config)
        .expect("the sweep's config is on a volume");
    let text = config_map_file(docs, volume, config).expect("the sweep's ConfigMap");
    let key = Path::new(config).file_name().unwrap().to_str().unwrap();
    std::fs::write(dir.join(key), text).unwrap();
    let mut args: Vec<String> = line[1..]
        .iter()
        .filter(|a| {
            !a.starts_with("--index") && !a.starts_with("--config") && !a.starts_with("--out")
        })
        .cloned()
        .collect();
    args.extend([
        format!("--config={}", dir.join(key).display()),
        format!("--out={}", dir.join("out").display()),
        "--list".to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let listed = run_binary(
        "rnad-learner",
        &args,
        &dir,
        "list",
        std::time::Duration::from_secs(60),
    );
    assert!(
        listed.status.success(),
        "{}: {}",
        bin_dir().display(),
        listed.stderr
    );
    listed.stdout.lines().count() as u64
}
