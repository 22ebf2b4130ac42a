//! Pod level: PodMigrationJobs executed on member clusters (pod-migration.md), Koordinator's
//! wire contract plus eviction conditions, profiles and the External policy.
//!
//! Pure decisions, one file per spec section, each with its table test; the executor (IO,
//! caches, the work queue) calls them and applies what they return:
//! - [`next_step`]: §2, the state machine of one job — the one next step, from
//!   [`facts::JobFacts`] to a [`step::JobStep`]; also [`next_step::refused`] for a refused
//!   eviction;
//! - [`status`]: §2 "Condition upsert" and "Status writes", merging our conditions into a
//!   status external controllers write too;
//! - [`messages`]: §2 and §4, every reason, message and Event string (quoted by `api::go_quote`
//!   like Go's `%q`);
//! - [`arbitration`]: §5, which Pending jobs of a member to admit, and the limits invariant;
//!   the §6 exemption of fan-out jobs past their gates;
//! - [`profiles`]: §3, the gates PodMigrationJobProfiles inject, matched with [`selector`];
//! - [`policy`]: §4, which eviction policy applies, the SoftEviction annotation, the External
//!   PDB's name, the evict reason and the retry backoff.
//!
//! [`facts`] and [`step`] are the inputs and the outputs of the decisions. Gates are evaluated
//! by [`crate::gates`], the one implementation both levels share. §6 (fan-out from a fleet
//! eviction) needs no change here: [`arbitration::exempt`] already frees the slots of fan-out
//! jobs past their gates, and such jobs run through [`next_step`] like any other.

pub mod arbitration;
pub mod executor;
pub mod facts;
pub mod messages;
pub mod next_step;
pub mod policy;
pub mod profiles;
pub mod selector;
#[cfg(test)]
mod spec_strings;
pub mod status;
pub mod step;
