//! Plays a scenario on a started fleet: the setup objects, then each step in order, one
//! timeline line per step as it ends; then the final report. A failed step does not stop
//! the run (later steps often show why it failed); a failed setup does, as nothing after it
//! could mean anything.

use super::actions;
use super::format::Scenario;
use super::objects::Clusters;
use super::report;
use super::step::HUB;
use crate::sandbox::apiserver::faults::FaultSettings;
use crate::sandbox::fleet::Fleet;
use std::io::Write;
use std::time::{Duration, Instant};

/// How one step (or the setup) ended.
#[derive(Debug, Clone, PartialEq)]
pub struct StepOutcome {
    pub title: String,
    /// Since the timeline started, when the step ended.
    pub at: Duration,
    /// What it did or saw; or why it failed.
    pub result: Result<String, String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub setup: Option<StepOutcome>,
    pub steps: Vec<StepOutcome>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.setup
            .iter()
            .chain(&self.steps)
            .all(|s| s.result.is_ok())
    }

    /// 0 when every step passed, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        if self.passed() { 0 } else { 1 }
    }

    /// The last line of a run.
    pub fn summary(&self) -> String {
        let failed: Vec<String> = self
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.result.is_err())
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        if self.setup.as_ref().is_some_and(|s| s.result.is_err()) {
            return "result: FAILED: the setup failed, no step ran".into();
        }
        match failed.len() {
            0 => format!("result: all {} steps ok", self.steps.len()),
            n => format!(
                "result: FAILED: {n} of {} steps failed (step {})",
                self.steps.len(),
                failed.join(", ")
            ),
        }
    }
}

/// Plays `scenario` on `fleet`, writing the timeline and the report to `out`.
pub async fn run(fleet: &Fleet, scenario: &Scenario, out: &mut dyn Write) -> Outcome {
    let clusters = Clusters::new(fleet);
    let started = Instant::now();
    let mut outcome = Outcome {
        setup: None,
        steps: Vec::new(),
    };
    let _ = writeln!(out, "\ntimeline:");
    if !scenario.setup.is_empty() {
        let result = actions::create(&clusters, HUB, &scenario.setup).await;
        let setup = ended("setup (on the hub)", started, result);
        let _ = writeln!(out, "{}", timeline_line(None, &setup));
        let failed = setup.result.is_err();
        outcome.setup = Some(setup);
        if failed {
            return finish(&clusters, outcome, out).await;
        }
    }
    for (i, step) in scenario.steps.iter().enumerate() {
        let result = actions::run(&clusters, step, scenario.timeout.0).await;
        let done = ended(&step.title, started, result);
        let _ = writeln!(out, "{}", timeline_line(Some(i + 1), &done));
        outcome.steps.push(done);
    }
    finish(&clusters, outcome, out).await
}

fn ended(title: &str, started: Instant, result: Result<String, String>) -> StepOutcome {
    StepOutcome {
        title: title.to_string(),
        at: started.elapsed(),
        result,
    }
}

async fn finish(clusters: &Clusters<'_>, outcome: Outcome, out: &mut dyn Write) -> Outcome {
    // Faults a scenario left in place would only garble the report: lift them first.
    let fleet = clusters.fleet();
    for cluster in std::iter::once(&fleet.hub).chain(&fleet.members) {
        cluster.server.set_faults(FaultSettings::default());
        cluster.server.set_unreachable(false);
    }
    let snapshot = report::read(clusters).await;
    let _ = writeln!(out, "\n{}", report::render(&snapshot));
    let _ = writeln!(out, "{}", outcome.summary());
    outcome
}

/// `[   3.2s]  ok      2. Evict web from member-1 — created ...`
pub fn timeline_line(number: Option<usize>, step: &StepOutcome) -> String {
    let at = format!("[{:>6.1}s]", step.at.as_secs_f64());
    let title = match number {
        Some(n) => format!("{n}. {}", step.title),
        None => step.title.clone(),
    };
    let (verdict, note) = match &step.result {
        Ok(note) => ("ok", note.as_str()),
        Err(why) => ("FAILED", why.as_str()),
    };
    if note.is_empty() {
        format!("{at}  {verdict:<6}  {title}")
    } else {
        format!("{at}  {verdict:<6}  {title} — {note}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(title: &str, secs: f64, result: Result<&str, &str>) -> StepOutcome {
        StepOutcome {
            title: title.into(),
            at: Duration::from_secs_f64(secs),
            result: result.map(Into::into).map_err(Into::into),
        }
    }

    #[test]
    fn timeline_lines_show_time_verdict_title_and_why() {
        let rows = [
            (
                "ok with a note",
                Some(2),
                step("Evict web", 3.21, Ok("created x")),
                "[   3.2s]  ok      2. Evict web — created x",
            ),
            (
                "ok without a note",
                Some(7),
                step("Pause", 12.0, Ok("")),
                "[  12.0s]  ok      7. Pause",
            ),
            (
                "failed says why",
                Some(3),
                step(
                    "Allowed",
                    33.35,
                    Err("after 30s: e: no Executed condition yet"),
                ),
                "[  33.4s]  FAILED  3. Allowed — after 30s: e: no Executed condition yet",
            ),
            (
                "the setup has no number",
                None,
                step("setup", 0.4, Ok("created 3 objects")),
                "[   0.4s]  ok      setup — created 3 objects",
            ),
        ];
        for (rule, number, outcome, want) in rows {
            assert_eq!(timeline_line(number, &outcome), want, "{rule}");
        }
    }

    #[test]
    fn the_summary_counts_failed_steps_and_the_exit_code_follows() {
        let ok = step("a", 1.0, Ok(""));
        let bad = step("b", 2.0, Err("no"));
        let rows = [
            (
                "all passed",
                None,
                vec![ok.clone(), ok.clone()],
                "result: all 2 steps ok",
                0,
            ),
            (
                "two failed",
                None,
                vec![bad.clone(), ok.clone(), bad.clone()],
                "result: FAILED: 2 of 3 steps failed (step 1, 3)",
                1,
            ),
            (
                "setup failed",
                Some(bad.clone()),
                vec![],
                "result: FAILED: the setup failed, no step ran",
                1,
            ),
        ];
        for (rule, setup, steps, summary, code) in rows {
            let outcome = Outcome { setup, steps };
            assert_eq!(outcome.summary(), summary, "{rule}");
            assert_eq!(outcome.exit_code(), code, "{rule}");
        }
    }
}
