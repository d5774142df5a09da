//! The `memlens` command: parses the command line and runs one subcommand.

fn main() {
    println!("memlens");
}
