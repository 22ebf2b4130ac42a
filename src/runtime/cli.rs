//! The `fleet-eviction` command line: subcommands and their dispatch. The flags of the
//! long-running subcommands live in `options`; the flags of `sandbox` and `crds --sandbox`
//! live here because this file is the one allowed edge from production code to the embedded
//! fleet (tests/boundaries.rs).

use std::io::Write;
use std::process::ExitCode;

#[cfg(feature = "sandbox")]
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::options::{ClusterArgs, MemberArgs, RunArgs};
use super::run;
use crate::api::crds;

/// Exit code for usage errors, as clap uses, and for subcommands not built yet: in both
/// cases the invocation, not the environment, is what has to change.
pub const EXIT_USAGE: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "fleet-eviction",
    version,
    about = "Safe workload eviction for Kubernetes fleets: placement evictions under disruption \
             budgets, condition gates, external hand-off and pod migration on member clusters."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The hub controller against a real hub (in-cluster config when no --kubeconfig is given).
    Run(RunArgs),
    /// The PodMigrationJob executor against one cluster (no hub). Not available yet.
    Member(MemberArgs),
    /// The embedded fleet: a hub and members on 127.0.0.1, for the quick start and tests.
    #[cfg(feature = "sandbox")]
    Sandbox(SandboxArgs),
    /// Print the CRDs fleet-eviction owns as multi-document YAML (pipe into kubectl apply -f -).
    Crds(CrdsArgs),
    /// Evict every placement from a member cluster and keep new ones off it. Not available
    /// yet.
    Drain(ClusterArgs),
    /// Let placements onto a drained member cluster again. Not available yet.
    Uncordon(ClusterArgs),
}

/// `fleet-eviction sandbox`: the embedded fleet.
#[cfg(feature = "sandbox")]
#[derive(Debug, Clone, Args)]
pub struct SandboxArgs {
    /// Member clusters to start, named member-1..member-N.
    #[arg(long, value_name = "N", default_value_t = 3, conflicts_with = "scenario",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub members: u32,

    /// Where to write hub.kubeconfig and <member>.kubeconfig (default: a fresh temporary
    /// folder).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Play a scripted demo (see examples/scenarios/); the scenario defines the fleet.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,

    /// Serve the fleet without attaching the controller.
    #[arg(long)]
    pub no_controller: bool,

    /// Seed for anything random, printed so a run can be repeated.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

/// `fleet-eviction crds`.
#[derive(Debug, Clone, Args)]
pub struct CrdsArgs {
    /// Print the KubeFleet stand-in CRDs used only by the sandbox and tests instead. Never
    /// apply them to a real hub: they would replace KubeFleet's and prune its data.
    #[arg(long)]
    pub sandbox: bool,
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run(args) => run::main(args),
        Command::Member(args) => super::member_command::main(args),
        #[cfg(feature = "sandbox")]
        Command::Sandbox(args) => {
            crate::sandbox::command::main(crate::sandbox::command::SandboxRequest {
                members: args.members as usize,
                dir: args.dir,
                scenario: args.scenario,
                no_controller: args.no_controller,
                seed: args.seed,
            })
        }
        Command::Crds(args) => print_crds(&args),
        Command::Drain(_) => not_available("drain", "fleet drain of a member cluster"),
        Command::Uncordon(_) => not_available("uncordon", "undo a fleet drain of a member cluster"),
    }
}

/// The one-line refusal of a subcommand whose issue is not resolved yet. It exists so the
/// command line is complete from the start and scripts get a clear answer, not a stub that
/// pretends to work.
pub fn not_available_message(subcommand: &str, planned: &str) -> String {
    format!("fleet-eviction: '{subcommand}' is not available yet (planned: {planned})")
}

fn not_available(subcommand: &str, planned: &str) -> ExitCode {
    eprintln!("{}", not_available_message(subcommand, planned));
    ExitCode::from(EXIT_USAGE)
}

/// The YAML `crds` prints: ours, or the KubeFleet stand-ins with `--sandbox`.
pub fn crds_yaml(args: &CrdsArgs) -> String {
    if args.sandbox {
        crds::to_yaml(&crds::sandbox_stand_ins())
    } else {
        crds::to_yaml(&crds::owned())
    }
}

fn print_crds(args: &CrdsArgs) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(crds_yaml(args).as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        // `fleet-eviction crds | head` closes the pipe early; that is the reader's choice.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fleet-eviction: cannot write the CRDs to stdout: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::option_values::MigrationLimit;
    use crate::runtime::options::{EvictPolicy, LogFormat, PmjMode};
    use clap::CommandFactory;
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    use std::time::Duration;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("fleet-eviction").chain(args.iter().copied()))
    }

    fn run_args(args: &[&str]) -> RunArgs {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        match parse(&all) {
            Ok(Cli {
                command: Command::Run(run),
            }) => run,
            other => panic!("expected run args from {args:?}, got {other:?}"),
        }
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn run_defaults_match_the_spec() {
        let run = run_args(&[]);
        assert_eq!(run.kubeconfig, None);
        assert_eq!(run.namespace, "fleet-eviction-system");
        assert_eq!(run.process.metrics_addr.to_string(), "0.0.0.0:8080");
        assert_eq!(run.process.log_format, LogFormat::Text);
        assert!(run.leader_election.leader_elect);
        assert_eq!(run.leader_election.lease_name, "fleet-eviction");
        assert_eq!(run.leader_election.lease_duration, Duration::from_secs(15));
        assert_eq!(run.leader_election.renew_deadline, Duration::from_secs(10));
        assert_eq!(run.leader_election.retry_period, Duration::from_secs(2));
        assert_eq!(run.workers, 8);
        assert_eq!(run.extended_ttl_default, Duration::from_secs(3600));
        assert!(run.enable_fleet_eviction);
        assert!(run.enable_pod_migration);
        assert_eq!(run.member_probe_interval, Duration::from_secs(10));
        let pmj = &run.pmj;
        assert_eq!(pmj.pmj_default_mode, PmjMode::EvictDirectly);
        assert_eq!(pmj.pmj_default_evict_policy, EvictPolicy::Eviction);
        assert_eq!(pmj.pmj_evict_qps, 10.0);
        assert_eq!(pmj.pmj_evict_burst, 1);
        assert_eq!(pmj.pmj_max_migrating_per_node.to_string(), "2");
        assert_eq!(
            pmj.pmj_max_migrating_per_namespace,
            MigrationLimit::Unlimited
        );
        assert_eq!(pmj.pmj_max_migrating_globally, MigrationLimit::Unlimited);
        assert_eq!(pmj.pmj_max_migrating_per_workload, None);
        assert_eq!(pmj.pmj_max_unavailable_per_workload, None);
        assert_eq!(pmj.pmj_gc_after, Duration::from_secs(1800));
        assert!(run.validate().is_ok(), "the defaults must be consistent");
    }

    #[test]
    fn bool_flags_accept_every_spelling() {
        let cases: &[(&[&str], bool, &str)] = &[
            (&["--leader-elect=false"], false, "equals form"),
            (&["--leader-elect", "false"], false, "separate value"),
            (&["--leader-elect"], true, "bare flag means true"),
            (&["--leader-elect=true"], true, "explicit true"),
        ];
        for (args, want, rule) in cases {
            assert_eq!(
                run_args(args).leader_election.leader_elect,
                *want,
                "rule: {rule}"
            );
        }
        let run = run_args(&[
            "--enable-fleet-eviction=false",
            "--enable-pod-migration=false",
        ]);
        assert!(!run.enable_fleet_eviction && !run.enable_pod_migration);
        assert!(
            parse(&["run", "--leader-elect=maybe"]).is_err(),
            "not a bool"
        );
    }

    #[test]
    fn flag_values_are_parsed() {
        let run = run_args(&[
            "--kubeconfig=/tmp/hub.kubeconfig",
            "--metrics-addr=:9090",
            "--log-format=json",
            "--log-filter=debug",
            "--pmj-default-mode=ReservationFirst",
            "--pmj-default-evict-policy=External",
            "--pmj-evict-qps=2.5",
            "--pmj-evict-burst=5",
            "--pmj-max-migrating-per-namespace=4",
            "--pmj-max-migrating-per-workload=20%",
            "--pmj-max-unavailable-per-workload=3",
            "--extended-ttl-default=0s",
        ]);
        assert_eq!(
            run.kubeconfig.as_deref(),
            Some(std::path::Path::new("/tmp/hub.kubeconfig"))
        );
        assert_eq!(run.process.metrics_addr.to_string(), "0.0.0.0:9090");
        assert_eq!(run.process.log_format, LogFormat::Json);
        assert_eq!(run.process.log_filter.as_deref(), Some("debug"));
        assert_eq!(run.pmj.pmj_default_mode, PmjMode::ReservationFirst);
        assert_eq!(run.pmj.pmj_default_evict_policy, EvictPolicy::External);
        assert_eq!(run.pmj.pmj_evict_qps, 2.5);
        assert_eq!(run.pmj.pmj_evict_burst, 5);
        assert_eq!(run.pmj.pmj_max_migrating_per_namespace.to_string(), "4");
        assert_eq!(
            run.pmj.pmj_max_migrating_per_workload,
            Some(IntOrString::String("20%".into()))
        );
        assert_eq!(
            run.pmj.pmj_max_unavailable_per_workload,
            Some(IntOrString::Int(3))
        );
        assert_eq!(run.extended_ttl_default, Duration::ZERO);
    }

    #[test]
    fn bad_invocations_are_usage_errors() {
        let cases: &[(&[&str], &str)] = &[
            (&["run", "--workers=0"], "at least one worker"),
            (&["run", "--lease-duration=15"], "durations need a unit"),
            (
                &["run", "--member-probe-interval=0s"],
                "probe interval must be positive",
            ),
            (
                &["run", "--pmj-evict-burst=0"],
                "burst of zero never evicts",
            ),
            (&["run", "--pmj-default-mode=Sideways"], "unknown mode"),
            (&["run", "--log-format=xml"], "unknown log format"),
            (&["member"], "member needs a kubeconfig"),
            (&["drain"], "drain needs a cluster"),
            (&["frobnicate"], "unknown subcommand"),
        ];
        for (args, rule) in cases {
            let err = parse(args).expect_err(rule);
            assert_eq!(err.exit_code(), i32::from(EXIT_USAGE), "rule: {rule}");
        }
    }

    #[test]
    fn inconsistent_leader_election_timings_are_refused() {
        let run = run_args(&["--lease-duration=5s"]);
        let err = run
            .validate()
            .expect_err("lease shorter than the renew deadline");
        assert!(err.to_string().contains("--lease-duration"), "{err}");
    }

    #[test]
    fn member_shares_the_pmj_flags() {
        let parsed = parse(&[
            "member",
            "--kubeconfig=k",
            "--pmj-max-migrating-per-node=unlimited",
        ]);
        match parsed {
            Ok(Cli {
                command: Command::Member(member),
            }) => {
                assert_eq!(
                    member.pmj.pmj_max_migrating_per_node,
                    MigrationLimit::Unlimited
                );
                assert_eq!(member.process.metrics_addr.to_string(), "0.0.0.0:8080");
            }
            other => panic!("expected member args, got {other:?}"),
        }
    }

    #[cfg(feature = "sandbox")]
    #[test]
    fn sandbox_refuses_members_with_a_scenario() {
        assert!(parse(&["sandbox", "--scenario=s.yaml"]).is_ok());
        assert!(parse(&["sandbox", "--members=5", "--dir=/tmp/x", "--seed=7"]).is_ok());
        let err = parse(&["sandbox", "--scenario=s.yaml", "--members=2"]).expect_err("conflict");
        assert_eq!(err.exit_code(), i32::from(EXIT_USAGE));
    }

    #[test]
    fn not_available_names_the_subcommand_and_the_plan() {
        assert_eq!(
            not_available_message("drain", "fleet drain of a member cluster"),
            "fleet-eviction: 'drain' is not available yet (planned: fleet drain of a member cluster)"
        );
    }
}
