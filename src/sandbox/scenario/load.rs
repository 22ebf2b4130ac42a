//! Reading a scenario file: YAML through serde-saphyr (its errors point at the line), then
//! the whole-file checks. Every failure names the file.

use super::checks;
use super::format::Scenario;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("cannot read scenario {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid scenario {}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
}

/// Reads and checks the scenario at `path`.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, &path.display().to_string()).map_err(|message| ScenarioError::Invalid {
        path: path.to_path_buf(),
        message,
    })
}

/// Parses and checks scenario text; `source_name` labels the YAML snippet of an error.
pub fn parse(text: &str, source_name: &str) -> Result<Scenario, String> {
    let scenario: Scenario = serde_saphyr::from_str(text).map_err(|e| {
        e.render_with_options(serde_saphyr::render_options! {
            source_name: Some(source_name),
        })
    })?;
    checks::check(&scenario)?;
    Ok(scenario)
}
