//! The binary as a user runs it: `fleet-eviction sandbox --scenario FILE` exits 0 when every
//! step passed, 1 when one failed (saying which and why), 2 for a file it cannot use.

use super::support::repo_path;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_fleet-eviction");
/// A whole scenario run (fleet start, steps, teardown) ends well within this.
const RUN_LIMIT: Duration = Duration::from_secs(90);

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary to its end; kills it and fails the test after `RUN_LIMIT`.
fn run(args: &[&str]) -> Ran {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fleet-eviction");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {RUN_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Ran {
        code: status.code(),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 paths")
}

#[test]
fn a_passing_scenario_exits_0() {
    let dir = tempfile::tempdir().expect("dir");
    let fleet_dir = dir.path().join("fleet");
    let file = repo_path("examples/scenarios/fleet-up.yaml");
    let ran = run(&[
        "sandbox",
        "--scenario",
        path_str(&file),
        "--dir",
        path_str(&fleet_dir),
    ]);
    assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("seed: 7"),
        "the file's seed: {}",
        ran.stdout
    );
    assert!(ran.stdout.contains("scenario: fleet-up"), "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("controller: attached, metrics on http://127.0.0.1:"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("result: all 13 steps ok"),
        "{}",
        ran.stdout
    );
    assert!(
        !ran.stdout.contains("sandbox ready:"),
        "a scenario run does not serve: {}",
        ran.stdout
    );
    assert!(fleet_dir.join("hub.kubeconfig").is_file(), "--dir is kept");
}

#[test]
fn a_wrong_expectation_fails_the_run_with_exit_1_and_says_why() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("wrong.yaml");
    let text = "\
members: 1
steps:
  - title: member-1 is registered
    expect: {kind: MemberCluster, name: member-1}
  - title: there are two members
    expect: {kind: MemberCluster, count: 2, within: 500ms}
  - title: an action after a failure still runs
    create: [{apiVersion: v1, kind: Namespace, metadata: {name: after}}]
";
    std::fs::write(&file, text).expect("write");
    let fleet_dir = dir.path().join("fleet");
    let ran = run(&[
        "sandbox",
        "--scenario",
        path_str(&file),
        "--seed",
        "3",
        "--dir",
        path_str(&fleet_dir),
    ]);
    assert_eq!(ran.code, Some(1), "{}\n{}", ran.stdout, ran.stderr);
    for line in [
        "seed: 3",
        "ok      1. member-1 is registered — member-1",
        "FAILED  2. there are two members — after 500ms: 1 match (member-1), want 2",
        "ok      3. an action after a failure still runs — created Namespace after",
        "Evictions on the hub (kubectl get crpe):",
        "result: FAILED: 1 of 3 steps failed (step 2)",
    ] {
        assert!(
            ran.stdout.contains(line),
            "{line:?} not in:\n{}",
            ran.stdout
        );
    }
}

#[test]
fn an_unusable_file_exits_2_naming_the_file_and_the_problem() {
    let dir = tempfile::tempdir().expect("dir");
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "members: 2\nsteps:\n  - title: x\n    frobnicate: {}\n",
    )
    .expect("write");
    let missing = dir.path().join("missing.yaml");
    let cases = [
        (
            bad.clone(),
            vec![
                format!("fleet-eviction sandbox: invalid scenario {}", bad.display()),
                "unknown step kind `frobnicate`".to_string(),
                "line 3".to_string(),
            ],
        ),
        (
            missing.clone(),
            vec![format!(
                "fleet-eviction sandbox: cannot read scenario {}",
                missing.display()
            )],
        ),
    ];
    for (file, fragments) in cases {
        let ran = run(&["sandbox", "--scenario", path_str(&file)]);
        assert_eq!(ran.code, Some(2), "{}: {}", file.display(), ran.stderr);
        assert!(ran.stdout.is_empty(), "nothing started: {}", ran.stdout);
        for fragment in fragments {
            assert!(
                ran.stderr.contains(&fragment),
                "{fragment:?} not in:\n{}",
                ran.stderr
            );
        }
    }
}

#[test]
fn members_cannot_be_given_with_a_scenario() {
    let file = repo_path("examples/scenarios/fleet-up.yaml");
    let ran = run(&["sandbox", "--scenario", path_str(&file), "--members", "5"]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("--members"), "{}", ran.stderr);
    assert!(ran.stdout.is_empty(), "{}", ran.stdout);
}

/// The README's first command: the quick start passes against the attached controller and
/// shows an eviction allowed by a budget, one blocked by it, and a gated one.
#[test]
fn the_quick_start_shows_allowed_blocked_and_gated_evictions() {
    let file = repo_path("examples/scenarios/quickstart.yaml");
    let ran = run(&["sandbox", "--scenario", path_str(&file)]);
    assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("result: all 12 steps ok"),
        "{}",
        ran.stdout
    );
    let row = |name: &str| -> Vec<String> {
        ran.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing: {}", ran.stdout))
            .split_whitespace()
            .take(6)
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        row("evict-web-member-1 "),
        ["evict-web-member-1", "web", "member-1", "True", "True", "-"]
    );
    assert_eq!(
        row("evict-web-member-2 "),
        [
            "evict-web-member-2",
            "web",
            "member-2",
            "True",
            "False",
            "-"
        ]
    );
    assert_eq!(
        row("evict-batch-member-3 "),
        [
            "evict-batch-member-3",
            "batch",
            "member-3",
            "True",
            "True",
            "Succeeded"
        ]
    );
}

/// The pod-level example: a migration through the Eviction API and a StatefulSet re-creation,
/// a gated one, and an External hand-off, all executed by the executor the hub runs for the
/// member.
#[test]
fn the_pod_migration_example_passes() {
    let file = repo_path("examples/scenarios/pod-migration.yaml");
    let ran = run(&["sandbox", "--scenario", path_str(&file)]);
    assert_eq!(ran.code, Some(0), "{}\n{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.contains("result: all 14 steps ok"),
        "{}",
        ran.stdout
    );
}
