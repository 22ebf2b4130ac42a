//! Pod level: PodMigrationJobs executed on member clusters (pod-migration.md), Koordinator's
//! wire contract plus eviction conditions, profiles and the External policy.
//!
//! Pure decisions, one file per spec section, each with its table test:
//! - [`status`]: §2 "Condition upsert" and "Status writes", merging our conditions into a
//!   status external controllers write too;
//! - [`messages`]: §2 and §4, every reason, message and Event string (quoted by [`quote`]
//!   like Go's `%q`);
//! - [`arbitration`]: §5, which Pending jobs of a member to admit, and the limits invariant;
//!   the §6 exemption of fan-out jobs past their gates;
//! - [`profiles`]: §3, the gates PodMigrationJobProfiles inject, matched with [`selector`];
//! - [`policy`]: §4, which eviction policy applies, the SoftEviction annotation, the External
//!   PDB's name, the evict reason and the retry backoff.

pub mod arbitration;
pub mod facts;
pub mod messages;
pub mod policy;
pub mod profiles;
pub mod quote;
pub mod selector;
pub mod status;
pub mod step;
