//! Pod level: PodMigrationJobs executed on member clusters (pod-migration.md), Koordinator's
//! wire contract plus eviction conditions, profiles and the External policy.
//!
//! Pure decisions, one file per spec section, each with its table test:
//! - [`status`]: §2 "Condition upsert" and "Status writes", merging our conditions into a
//!   status external controllers write too;
//! - [`messages`]: §2 and §4, every reason, message and Event string (quoted by [`quote`]
//!   like Go's `%q`).

pub mod facts;
pub mod messages;
pub mod quote;
pub mod status;
pub mod step;
