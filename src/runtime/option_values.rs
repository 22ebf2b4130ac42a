//! Parsers and checks for flag values, kept pure so every rule is a row in a table test.
//! clap calls the parsers (a bad value is a usage error, exit code 2, naming the flag); the
//! cross-flag checks run right after parsing, before anything touches the network.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::num::NonZeroU32;
use std::str::FromStr;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    #[error("invalid listen address {input:?}: expected HOST:PORT (e.g. 0.0.0.0:8080) or :PORT")]
    ListenAddr { input: String },
    #[error("invalid limit {input:?}: expected a whole number of at least 1, or `unlimited`")]
    Limit { input: String },
    #[error(
        "invalid workload limit {input:?}: expected a whole number of at least 1 or a \
         percentage from 1% to 100% (e.g. 2 or 10%)"
    )]
    WorkloadLimit { input: String },
    #[error(
        "invalid rate {input:?}: expected a number of calls per second above 0 (e.g. 10 or 0.5)"
    )]
    Rate { input: String },
    #[error("invalid duration {input:?}: must be longer than 0s")]
    ZeroDuration { input: String },
    #[error(
        "leader election timings are inconsistent: --lease-duration ({lease:?}) must be longer \
         than --renew-deadline ({renew:?}), and --renew-deadline longer than 1.2 x \
         --retry-period ({retry:?}); the defaults are 15s, 10s and 2s"
    )]
    LeaderElectionTimings {
        lease: Duration,
        renew: Duration,
        retry: Duration,
    },
}

/// `HOST:PORT`, or `:PORT` for every IPv4 interface (the form controller-runtime users type).
pub fn parse_listen_addr(input: &str) -> Result<SocketAddr, OptionsError> {
    let err = || OptionsError::ListenAddr {
        input: input.to_string(),
    };
    if let Some(port) = input.strip_prefix(':') {
        let port: u16 = port.parse().map_err(|_| err())?;
        return Ok(SocketAddr::from((Ipv4Addr::UNSPECIFIED, port)));
    }
    input.parse().map_err(|_| err())
}

/// A non-zero Go duration: for intervals where 0 would mean "spin".
pub fn parse_positive_duration(input: &str) -> Result<Duration, String> {
    let duration = crate::api::duration::parse(input).map_err(|e| e.to_string())?;
    if duration.is_zero() {
        return Err(OptionsError::ZeroDuration {
            input: input.to_string(),
        }
        .to_string());
    }
    Ok(duration)
}

/// Calls per second for the eviction token bucket: positive and finite.
pub fn parse_rate(input: &str) -> Result<f64, OptionsError> {
    match input.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        _ => Err(OptionsError::Rate {
            input: input.to_string(),
        }),
    }
}

/// A concurrency limit of the PMJ arbitration. `unlimited` is spelled out rather than
/// encoded as 0 (Koordinator's convention), because "0" reads as "allow none".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MigrationLimit {
    Unlimited,
    AtMost(NonZeroU32),
}

impl FromStr for MigrationLimit {
    type Err = OptionsError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        if input == "unlimited" {
            return Ok(Self::Unlimited);
        }
        input
            .parse::<NonZeroU32>()
            .map(Self::AtMost)
            .map_err(|_| OptionsError::Limit {
                input: input.to_string(),
            })
    }
}

impl fmt::Display for MigrationLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unlimited => f.write_str("unlimited"),
            Self::AtMost(n) => write!(f, "{n}"),
        }
    }
}

/// A per-workload limit: a count, or a percentage of the workload's replicas (the same
/// int-or-string the Koordinator arbitration arguments use). Zero is refused: the spec
/// rounds every limit up to at least 1, so accepting 0 would silently mean 1.
pub fn parse_workload_limit(input: &str) -> Result<IntOrString, OptionsError> {
    let err = || OptionsError::WorkloadLimit {
        input: input.to_string(),
    };
    if let Some(percent) = input.strip_suffix('%') {
        let percent: u8 = percent.parse().map_err(|_| err())?;
        if !(1..=100).contains(&percent) {
            return Err(err());
        }
        return Ok(IntOrString::String(format!("{percent}%")));
    }
    match input.parse::<i32>() {
        Ok(count) if count >= 1 => Ok(IntOrString::Int(count)),
        _ => Err(err()),
    }
}

/// The same rule client-go's leader election enforces (jitter factor 1.2), so timings that
/// work with controller-runtime work here and vice versa.
pub fn validate_leader_election(
    lease: Duration,
    renew: Duration,
    retry: Duration,
) -> Result<(), OptionsError> {
    let consistent = !retry.is_zero() && lease > renew && renew > retry.mul_f64(1.2);
    if consistent {
        Ok(())
    } else {
        Err(OptionsError::LeaderElectionTimings {
            lease,
            renew,
            retry,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn listen_addr_table() {
        let cases: &[(&str, Option<&str>, &str)] = &[
            ("0.0.0.0:8080", Some("0.0.0.0:8080"), "explicit IPv4"),
            (
                "127.0.0.1:0",
                Some("127.0.0.1:0"),
                "port 0 picks a free port",
            ),
            ("[::1]:9090", Some("[::1]:9090"), "IPv6"),
            (
                ":8080",
                Some("0.0.0.0:8080"),
                "bare port means every interface",
            ),
            ("localhost:8080", None, "host names are not resolved"),
            ("8080", None, "port without colon"),
            (":", None, "no port"),
            (":70000", None, "port out of range"),
        ];
        for (input, want, rule) in cases {
            let got = parse_listen_addr(input).ok().map(|a| a.to_string());
            assert_eq!(got.as_deref(), *want, "rule: {rule} ({input:?})");
        }
    }

    #[test]
    fn positive_duration_table() {
        let cases: &[(&str, Option<Duration>, &str)] = &[
            ("10s", Some(secs(10)), "Go duration"),
            ("1m30s", Some(secs(90)), "compound"),
            ("0s", None, "zero would make the loop spin"),
            ("10", None, "unit required"),
        ];
        for (input, want, rule) in cases {
            assert_eq!(parse_positive_duration(input).ok(), *want, "rule: {rule}");
        }
    }

    #[test]
    fn rate_table() {
        let cases: &[(&str, Option<f64>, &str)] = &[
            ("10", Some(10.0), "integer"),
            ("0.5", Some(0.5), "fraction"),
            ("0", None, "zero would never evict"),
            ("-1", None, "negative"),
            ("inf", None, "infinite is not a rate"),
            ("NaN", None, "not a number"),
            ("ten", None, "words"),
        ];
        for (input, want, rule) in cases {
            assert_eq!(parse_rate(input).ok(), *want, "rule: {rule}");
        }
    }

    #[test]
    fn migration_limit_table() {
        let n = |v| MigrationLimit::AtMost(NonZeroU32::new(v).expect("non-zero"));
        let cases: &[(&str, Option<MigrationLimit>, &str)] = &[
            ("2", Some(n(2)), "count"),
            (
                "unlimited",
                Some(MigrationLimit::Unlimited),
                "spelled-out unlimited",
            ),
            ("0", None, "zero is ambiguous: refused"),
            ("-1", None, "negative"),
            ("10%", None, "percentages only for workload limits"),
            ("Unlimited", None, "exact spelling"),
        ];
        for (input, want, rule) in cases {
            assert_eq!(input.parse::<MigrationLimit>().ok(), *want, "rule: {rule}");
        }
        assert_eq!(n(3).to_string(), "3");
        assert_eq!(MigrationLimit::Unlimited.to_string(), "unlimited");
    }

    #[test]
    fn workload_limit_table() {
        let cases: &[(&str, Option<IntOrString>, &str)] = &[
            ("2", Some(IntOrString::Int(2)), "count"),
            ("10%", Some(IntOrString::String("10%".into())), "percentage"),
            (
                "100%",
                Some(IntOrString::String("100%".into())),
                "whole workload",
            ),
            ("0", None, "zero would silently mean 1"),
            ("0%", None, "zero percent would silently mean 1"),
            ("101%", None, "over 100%"),
            ("-1", None, "negative"),
            ("1.5%", None, "fractional percent"),
            ("%", None, "bare percent sign"),
            ("ten", None, "words"),
        ];
        for (input, want, rule) in cases {
            assert_eq!(parse_workload_limit(input).ok(), *want, "rule: {rule}");
        }
    }

    #[test]
    fn leader_election_timings_table() {
        let cases: &[(u64, u64, u64, bool, &str)] = &[
            (15, 10, 2, true, "defaults"),
            (60, 40, 5, true, "slow cluster"),
            (10, 10, 2, false, "lease must outlast the renew deadline"),
            (15, 20, 2, false, "renew deadline longer than the lease"),
            (
                15,
                10,
                9,
                false,
                "renew deadline must exceed 1.2 x retry period",
            ),
            (15, 10, 0, false, "zero retry period would spin"),
        ];
        for (lease, renew, retry, ok, rule) in cases {
            let got = validate_leader_election(secs(*lease), secs(*renew), secs(*retry));
            assert_eq!(got.is_ok(), *ok, "rule: {rule}");
        }
    }
}
