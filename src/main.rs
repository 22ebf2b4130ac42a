use std::process::ExitCode;

fn main() -> ExitCode {
    fleet_eviction::runtime::cli::main()
}
