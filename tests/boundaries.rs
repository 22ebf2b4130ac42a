//! Production modules never depend on the sandbox (overview.md, Architecture).

mod support;

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn production_modules_do_not_mention_the_sandbox() {
    let mut offenders = Vec::new();
    for module in ["api", "fleet", "pod", "gates", "member", "runtime"] {
        let dir = support::repo_path(&format!("src/{module}"));
        if !dir.exists() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("readable");
            for (n, line) in text.lines().enumerate() {
                if line.contains("sandbox") && !is_allowed(&file, line) {
                    offenders.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "production code mentions the sandbox:\n{}",
        offenders.join("\n")
    );
}

/// The only edges allowed: the CLI's `sandbox` subcommand behind the cargo feature, and the
/// keys/CRD list that name the sandbox's own objects (data, not a dependency).
fn is_allowed(file: &Path, line: &str) -> bool {
    let name = file.to_string_lossy();
    let cli = name.ends_with("runtime/cli.rs") || name.contains("runtime/sandbox_command");
    let data = (name.ends_with("api/keys.rs")
        || name.ends_with("api/crds.rs")
        || name.ends_with("api/kubefleet.rs"))
        && !line.contains("crate::sandbox")
        && !line.contains("use ");
    cli || data
}
