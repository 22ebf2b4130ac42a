//! Request accounting, per server: counts by verb, resource and code, and a bounded log of
//! recent requests with their start and end (tests read overlaps from it).

use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CountKey {
    pub verb: String,
    pub resource: String,
    pub code: u16,
}

/// One served request; times are microseconds since the server started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestRecord {
    pub verb: String,
    pub resource: String,
    pub namespace: String,
    pub name: String,
    pub code: u16,
    pub start_us: u64,
    pub end_us: u64,
}

#[derive(Debug, Default)]
pub struct Accounting {
    counts: BTreeMap<CountKey, u64>,
    log: VecDeque<RequestRecord>,
}

/// Enough for a benchmark's burst; older records are dropped first.
const LOG_CAPACITY: usize = 200_000;

impl Accounting {
    pub fn record(&mut self, record: RequestRecord) {
        let key = CountKey {
            verb: record.verb.clone(),
            resource: record.resource.clone(),
            code: record.code,
        };
        *self.counts.entry(key).or_default() += 1;
        if self.log.len() == LOG_CAPACITY {
            self.log.pop_front();
        }
        self.log.push_back(record);
    }

    pub fn counts(&self) -> Vec<(CountKey, u64)> {
        self.counts.iter().map(|(k, v)| (k.clone(), *v)).collect()
    }

    /// How many requests matched `verb` and `resource` (any code).
    pub fn count(&self, verb: &str, resource: &str) -> u64 {
        self.counts
            .iter()
            .filter(|(k, _)| k.verb == verb && k.resource == resource)
            .map(|(_, v)| v)
            .sum()
    }

    pub fn log(&self) -> Vec<RequestRecord> {
        self.log.iter().cloned().collect()
    }

    pub fn reset(&mut self) {
        self.counts.clear();
        self.log.clear();
    }
}
