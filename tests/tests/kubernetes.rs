//! The Kubernetes deployment (`deploy/kubernetes`): the PrometheusRule is
//! the alerts file's, the base and the sweep keep every invariant of
//! [`rnad_tests::manifests`] as written, each invariant catches what it is
//! for, and (set apart: `kubectl` and `kubernetes-validate` are not on a
//! fresh machine; `docker/install-check-tools.sh` installs them) every
//! overlay renders with `kubectl kustomize`, passes `kubernetes-validate
//! --strict` and keeps the invariants as rendered.

use std::path::Path;
use std::process::Command;

use rnad_testkit::{scratch, workspace};
use rnad_tests::manifests::{documents, problems, prometheus_rule};
use serde_json::{json, Value};

const KUBERNETES: &str = "deploy/kubernetes";
const RULE: &str = "deploy/kubernetes/overlays/prometheus-operator/prometheus-rule.yaml";
const OVERLAYS: [&str; 7] = [
    "base",
    "overlays/prometheus-operator",
    "overlays/gpu",
    "overlays/gpu-actors",
    "overlays/autoscale",
    "overlays/sweep",
    "overlays/best-response",
];

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The objects of a kustomization as written, without kustomize: its
/// resource files, and the ConfigMap that `configs/kustomization.yaml`
/// generates where it is included (under its plain name, which the
/// manifests use before kustomize adds a hash).
fn as_written(dir: &str) -> Vec<Value> {
    let dir = workspace().join(KUBERNETES).join(dir);
    let kustomization = &documents(&read(&dir.join("kustomization.yaml")))[0];
    let mut docs = Vec::new();
    for resource in kustomization["resources"].as_array().unwrap() {
        let path = dir.join(resource.as_str().unwrap());
        if path.is_dir() {
            assert!(path.ends_with("configs"), "{}", path.display());
            docs.push(generated_config_map(&path));
        } else {
            docs.extend(documents(&read(&path)));
        }
    }
    docs
}

fn generated_config_map(configs: &Path) -> Value {
    let kustomization = &documents(&read(&configs.join("kustomization.yaml")))[0];
    let generator = &kustomization["configMapGenerator"][0];
    let mut data = serde_json::Map::new();
    for file in generator["files"].as_array().unwrap() {
        let (key, source) = file.as_str().unwrap().split_once('=').unwrap();
        data.insert(key.into(), read(&configs.join(source)).into());
    }
    json!({"kind": "ConfigMap", "metadata": {"name": generator["name"]}, "data": data})
}

#[test]
fn the_prometheus_rule_is_the_alerts_file() {
    let alerts = read(&workspace().join("docker/prometheus/alerts.yml"));
    let wanted = prometheus_rule(&alerts);
    let path = workspace().join(RULE);
    if std::env::var_os("RNAD_BLESS").is_some() {
        std::fs::write(&path, &wanted).unwrap();
    }
    assert!(
        read(&path) == wanted,
        "{RULE} is not generated from docker/prometheus/alerts.yml: \
         RNAD_BLESS=1 cargo test -p rnad-tests --test kubernetes rewrites it"
    );
    let rule = &documents(&wanted)[0];
    let groups = &documents(&alerts)[0]["groups"];
    assert_eq!(rule["spec"]["groups"], *groups);
    assert_eq!(groups[0]["rules"].as_array().unwrap().len(), 8);
}

#[test]
fn the_base_and_the_sweep_keep_every_invariant_as_written() {
    for dir in ["base", "overlays/sweep"] {
        let docs = as_written(dir);
        assert!(docs.len() >= 3, "{dir}: {docs:?}");
        assert_eq!(problems(&docs), Vec::<String>::new(), "{dir}");
    }
}

/// Applies `change` to the base's objects and returns the problems found.
fn problems_after(dir: &str, change: impl FnOnce(&mut Vec<Value>)) -> Vec<String> {
    let mut docs = as_written(dir);
    change(&mut docs);
    problems(&docs)
}

fn object<'a>(docs: &'a mut [Value], kind: &str) -> &'a mut Value {
    docs.iter_mut().find(|d| d["kind"] == kind).unwrap()
}

fn container<'a>(docs: &'a mut [Value], kind: &str, index: usize) -> &'a mut Value {
    &mut object(docs, kind)["spec"]["template"]["spec"]["containers"][index]
}

#[track_caller]
fn finds(found: Vec<String>, wanted: &str) {
    assert!(
        found.iter().any(|p| p.contains(wanted)),
        "expected a problem with {wanted:?}, found {found:?}"
    );
}

#[test]
fn each_invariant_catches_what_it_is_for() {
    finds(
        problems_after("base", |d| {
            object(d, "StatefulSet")["spec"]["replicas"] = json!(2)
        }),
        "not a StatefulSet of 1",
    );
    finds(
        problems_after("base", |d| {
            let args = &mut container(d, "Deployment", 0)["args"];
            args.as_array_mut().unwrap().push(json!("--gmaes=4"));
        }),
        "is refused",
    );
    finds(
        problems_after("base", |d| {
            container(d, "StatefulSet", 1)["args"][4] = json!("--history=/tmp/history.jsonl");
        }),
        "not the run directory's",
    );
    finds(
        problems_after("base", |d| {
            container(d, "StatefulSet", 0)["args"][3] = json!("--run-dir=/tmp/experiment");
        }),
        "not on a volume its StatefulSet claims",
    );
    finds(
        problems_after("base", |d| {
            object(d, "ConfigMap")["data"]["experiment.toml"] = json!("game = \"leduc_poker\"\n");
        }),
        "experiment.toml is refused",
    );
    finds(
        problems_after("base", |d| {
            container(d, "Deployment", 0)["args"][1] = json!("--learner=rnad-learner:7001");
        }),
        "reaches the learner's rpc port",
    );
    finds(
        problems_after("base", |d| {
            object(d, "NetworkPolicy")["spec"]["ingress"][0]["from"] = json!([]);
        }),
        "more than actors",
    );
    finds(
        problems_after("base", |d| {
            object(d, "StatefulSet")["spec"]["template"]["spec"]["securityContext"] = json!({});
        }),
        "may run as root",
    );
    finds(
        problems_after("base", |d| {
            container(d, "Deployment", 0)["securityContext"]["readOnlyRootFilesystem"] =
                json!(false);
        }),
        "write its root filesystem",
    );
    finds(
        problems_after("overlays/sweep", |d| {
            object(d, "Job")["spec"]["completions"] = json!(8)
        }),
        "completions 8 but the sweep has 9 runs",
    );
    finds(
        problems_after("base", |d| {
            container(d, "StatefulSet", 1)["volumeMounts"][0]["mountPath"] = json!("/data");
        }),
        "does not mount the learner's volume where the learner does",
    );
    finds(
        problems_after("base", |d| {
            container(d, "Deployment", 0)["livenessProbe"] = json!(null);
        }),
        "no liveness probe",
    );
    finds(
        problems_after("base", |d| {
            container(d, "StatefulSet", 0)["resources"]["requests"] = json!({"memory": "1Gi"});
        }),
        "requests no CPU",
    );
    finds(
        problems_after("base", |d| {
            object(d, "Deployment")["spec"]["template"]["spec"]["automountServiceAccountToken"] =
                json!(null);
        }),
        "mounts a service-account token",
    );
    let scaler = json!({"kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "rnad-actor"}}});
    finds(
        problems_after("base", |d| d.push(scaler.clone())),
        "autoscaled but sets replicas",
    );
    finds(
        problems_after("base", |d| {
            let mut scaler = scaler.clone();
            scaler["spec"]["scaleTargetRef"]["name"] = json!("rnad-learner");
            d.push(scaler);
        }),
        "scales no Deployment here",
    );
    finds(
        problems_after("overlays/sweep", |d| {
            object(d, "Job")["spec"]["completionMode"] = json!("NonIndexed");
        }),
        "not an Indexed Job",
    );
    finds(
        problems_after("overlays/sweep", |d| {
            object(d, "Job")["spec"]["podFailurePolicy"] = json!(null);
        }),
        "ignores exit 75",
    );
    let wrong_port = json!({"kind": "PodMonitor", "metadata": {"name": "m"}, "spec": {
        "selector": {"matchLabels": {"app.kubernetes.io/component": "learner"}},
        "podMetricsEndpoints": [{"port": "metrics-typo"}]}});
    finds(
        problems_after("base", |d| d.push(wrong_port)),
        "is not on every pod it selects",
    );
    let monitor = json!({"kind": "PodMonitor", "metadata": {"name": "m"}, "spec": {
        "selector": {"matchLabels": {"app.kubernetes.io/component": "actor"}},
        "podMetricsEndpoints": [{"port": "metrics", "relabelings": [
            {"targetLabel": "job", "replacement": "actors"}]}]}});
    finds(
        problems_after("base", |d| d.push(monitor)),
        "not actor, evaluator and learner",
    );
    let rule = json!({"kind": "PrometheusRule", "metadata": {"name": "r"}, "spec": {"groups": []}});
    finds(
        problems_after("base", |d| d.push(rule)),
        "differs from docker/prometheus/alerts.yml",
    );
}

/// Runs a tool the tests set apart need, failing with how to install it.
fn tool(program: &str, args: &[&str]) -> std::process::Output {
    Command::new(program)
        .args(args)
        .current_dir(workspace().join(KUBERNETES))
        .output()
        .unwrap_or_else(|e| {
            panic!("{program} cannot be run ({e}): run docker/install-check-tools.sh (CI does)")
        })
}

fn text(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
#[ignore = "needs kubectl and kubernetes-validate: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn every_overlay_renders_validates_and_keeps_the_invariants() {
    let dir = scratch("kubernetes-render");
    for overlay in OVERLAYS {
        let rendered = tool("kubectl", &["kustomize", overlay]);
        assert!(rendered.status.success(), "{overlay}: {}", text(&rendered));
        let yaml = String::from_utf8(rendered.stdout).unwrap();
        let docs = documents(&yaml);
        assert_eq!(problems(&docs), Vec::<String>::new(), "{overlay}");
        what_the_overlay_adds(overlay, &docs);

        // kubernetes-validate knows the built-in kinds; the Prometheus
        // Operator's are checked by the invariants above.
        let built_in: Vec<String> = yaml
            .split("\n---\n")
            .filter(|d| !d.contains("apiVersion: monitoring.coreos.com/"))
            .map(str::to_string)
            .collect();
        let file = dir.join(format!("{}.yaml", overlay.replace('/', "-")));
        std::fs::write(&file, built_in.join("\n---\n")).unwrap();
        let validated = tool(
            "kubernetes-validate",
            &["--strict", "--no-warn", file.to_str().unwrap()],
        );
        let report = text(&validated);
        assert!(validated.status.success(), "{overlay}: {report}");
        assert_eq!(
            report.matches(" passed for resource ").count(),
            built_in.len(),
            "{overlay}: {report}"
        );
    }
}

/// Each overlay's own objects are there (so the invariants about them
/// were checked, not skipped).
fn what_the_overlay_adds(overlay: &str, docs: &[Value]) {
    let count = |kind: &str| docs.iter().filter(|d| d["kind"] == kind).count();
    let workload = |kind: &str| docs.iter().find(|d| d["kind"] == kind).unwrap();
    let pod = |kind: &str| workload(kind)["spec"]["template"]["spec"].clone();
    let (learner, actor) = (|| pod("StatefulSet"), || pod("Deployment"));
    // A pod on one GPU: the CUDA image, a GPU of its own, told to use it,
    // and let onto GPU nodes despite their taint.
    let on_a_gpu = |pod: &Value| {
        let container = &pod["containers"][0];
        container["image"]
            .as_str()
            .is_some_and(|i| i.starts_with("rnad-cuda"))
            && container["resources"]["limits"]["nvidia.com/gpu"] == 1
            && container["args"]
                .as_array()
                .unwrap()
                .contains(&json!("--device=cuda"))
            && pod["tolerations"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t["key"] == "nvidia.com/gpu"))
    };
    match overlay {
        "overlays/prometheus-operator" => {
            assert_eq!((count("PodMonitor"), count("PrometheusRule")), (2, 1));
        }
        "overlays/gpu" => {
            assert!(on_a_gpu(&learner()));
            assert!(!on_a_gpu(&actor()));
        }
        "overlays/gpu-actors" => {
            assert!(on_a_gpu(&learner()) && on_a_gpu(&actor()));
            let strategy = &workload("Deployment")["spec"]["strategy"];
            assert_eq!(strategy["rollingUpdate"]["maxSurge"], 0);
        }
        "overlays/autoscale" => assert_eq!(count("HorizontalPodAutoscaler"), 1),
        "overlays/sweep" => assert_eq!((count("Job"), count("StatefulSet")), (1, 0)),
        "overlays/best-response" => {
            let service = docs
                .iter()
                .find(|d| d["metadata"]["name"] == "rnad-best-response")
                .unwrap();
            let args = &service["spec"]["template"]["spec"]["containers"][0]["args"];
            assert!(args
                .as_array()
                .unwrap()
                .contains(&json!("--mode=best_response")));
        }
        _ => assert_eq!(count("StatefulSet"), 1),
    }
}

/// kubernetes-validate refuses what the API server would: the check
/// above can fail.
#[test]
#[ignore = "needs kubernetes-validate: run docker/install-check-tools.sh, then cargo test --workspace --release -- --ignored"]
fn kubernetes_validate_refuses_a_misspelt_field() {
    let dir = scratch("kubernetes-misspelt");
    let file = dir.join("service.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selectr: {}\n",
    )
    .unwrap();
    let validated = tool("kubernetes-validate", &["--strict", file.to_str().unwrap()]);
    assert!(!validated.status.success(), "{}", text(&validated));
    assert!(text(&validated).contains("selectr"), "{}", text(&validated));
}
