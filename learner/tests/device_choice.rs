//! The device a learner or an actor is given (`--device`,
//! `--actor-device`) reaches every tensor it creates, checked without a
//! GPU: outside tests, their code names the CPU only where it means the
//! CPU (the default choice, and the copies the learner publishes, which
//! travel as bytes). Any other tensor made on the CPU would, on a GPU run,
//! meet the GPU's tensors in one operation and stop the run (candle
//! refuses mixed devices), the failure a CUDA run on an H200 found once in
//! the learner's publishing path.

use std::path::{Path, PathBuf};

/// The source folders checked, relative to this crate: the learner, its
/// commands (`local`, `bench`, the lockstep actor) and the actor.
const SOURCES: [&str; 3] = ["src", "cli/src", "../actor/src"];

/// Where that code may name the CPU: the default devices, and the
/// learner's published copies. (file under SOURCES, line)
const CPU_ON_PURPOSE: [(&str, &str); 6] = [
    ("src/resume.rs", "device: Device::Cpu,"),
    (
        "src/resume.rs",
        "online: state.online.to_device(&Device::Cpu)?,",
    ),
    (
        "src/resume.rs",
        "target: state.target.to_device(&Device::Cpu)?,",
    ),
    ("src/resume.rs", "reg: state.reg.to_device(&Device::Cpu)?,"),
    ("cli/src/local.rs", "actor_device: Device::Cpu,"),
    ("../actor/src/selfplay.rs", "device: Device::Cpu,"),
];

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The lines of `source` before its test module, if it has one.
fn code_before_tests(source: &str) -> impl Iterator<Item = &str> {
    source
        .lines()
        .take_while(|line| line.trim() != "#[cfg(test)]")
}

/// Lines outside tests under `root`/`dir` that name the CPU device and
/// are not in `CPU_ON_PURPOSE`, as "file: line".
fn cpu_lines(root: &Path, dir: &str) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&root.join(dir), &mut files);
    let mut found = Vec::new();
    for file in files {
        // Test modules in files of their own (`rnad/tests.rs`).
        if file.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let name = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let source = std::fs::read_to_string(&file).unwrap();
        for line in code_before_tests(&source).map(str::trim) {
            let on_purpose = CPU_ON_PURPOSE.contains(&(name.as_str(), line));
            if (line.contains("Device::Cpu") || line.contains("Device::cpu")) && !on_purpose {
                found.push(format!("{}: {line}", file.display()));
            }
        }
    }
    found
}

#[test]
fn the_learner_and_the_actor_create_tensors_only_on_their_devices() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stray: Vec<String> = SOURCES
        .into_iter()
        .flat_map(|dir| cpu_lines(root, dir))
        .collect();
    assert!(
        stray.is_empty(),
        "tensors made on the CPU whatever the device:\n{}",
        stray.join("\n")
    );
    // Every allowed line is still there: a list of exceptions that no
    // longer match would let the next one through unseen.
    for (file, line) in CPU_ON_PURPOSE {
        let source = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(
            code_before_tests(&source).any(|l| l.trim() == line),
            "{file} no longer has {line:?}: update CPU_ON_PURPOSE"
        );
    }
}

/// The check finds a tensor made on the CPU in learner code.
#[test]
fn a_tensor_made_on_the_cpu_is_found() {
    let dir = rnad_testkit::scratch("device_choice");
    std::fs::write(
        dir.join("step.rs"),
        "fn mask(n: usize) -> Tensor {\n    Tensor::zeros(n, DType::F32, &Device::Cpu).unwrap()\n}\n\
         #[cfg(test)]\nmod tests {\n    fn cpu() { let _ = Device::Cpu; }\n}\n",
    )
    .unwrap();
    let found = cpu_lines(&dir, ".");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("Tensor::zeros(n, DType::F32, &Device::Cpu).unwrap()"));
}
