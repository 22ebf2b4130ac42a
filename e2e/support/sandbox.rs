//! The compiled `fleet-eviction sandbox` as a child process, and kubectl against it, for
//! every e2e test.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_fleet-eviction");
pub const WAIT: Duration = Duration::from_secs(60);

/// The sandbox as a child process; SIGTERM and reaped on drop.
pub struct Sandbox {
    child: Child,
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn start() -> Sandbox {
        Sandbox::start_with(&[])
    }

    pub fn start_with(extra: &[&str]) -> Sandbox {
        let dir = tempfile::tempdir().expect("temp dir");
        let fleet = dir.path().join("fleet");
        let mut child = Command::new(BIN)
            .args(["sandbox", "--members", "3", "--seed", "3"])
            .args(extra)
            .arg("--dir")
            .arg(&fleet)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the sandbox");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut lines = Vec::new();
        loop {
            match rx.recv_timeout(WAIT) {
                Ok(line) if line.starts_with("sandbox ready: ") => break,
                Ok(line) => lines.push(line),
                Err(_) => {
                    let _ = child.kill();
                    panic!("the sandbox never printed its ready line: {lines:?}");
                }
            }
        }
        Sandbox { child, dir }
    }

    pub fn kubeconfig(&self, cluster: &str) -> PathBuf {
        self.dir
            .path()
            .join("fleet")
            .join(format!("{cluster}.kubeconfig"))
    }

    pub fn kubectl(&self, cluster: &str, args: &[&str]) -> Output {
        Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(self.kubeconfig(cluster))
            .arg("--cache-dir")
            .arg(self.dir.path().join("kubectl-cache"))
            .args(args)
            .output()
            .expect("kubectl runs")
    }

    /// kubectl on `cluster`, which must succeed; its stdout.
    pub fn ok_on(&self, cluster: &str, args: &[&str]) -> String {
        let out = self.kubectl(cluster, args);
        assert!(
            out.status.success(),
            "kubectl {args:?} on {cluster}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `kubectl apply -f` of `yaml` on `cluster`.
    pub fn apply_on(&self, cluster: &str, yaml: &str) {
        let path = self
            .dir
            .path()
            .join(format!("apply-{cluster}-{}.yaml", yaml.len()));
        std::fs::write(&path, yaml).expect("write manifest");
        self.ok_on(cluster, &["apply", "-f", path_str(&path)]);
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn path_str(path: &Path) -> &str {
    path.to_str().expect("temp paths are UTF-8")
}
