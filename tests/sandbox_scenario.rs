//! Scenario files (`fleet-eviction sandbox --scenario FILE`): how files are read and refused,
//! scenarios played in process on a real sandbox fleet, and the binary's exit codes.

#[path = "sandbox_scenario/binary.rs"]
mod binary;
#[path = "sandbox_scenario/in_process.rs"]
mod in_process;
#[path = "sandbox_scenario/parsing.rs"]
mod parsing;
mod support;
