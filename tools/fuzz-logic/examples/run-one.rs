//! Runs one target body on files: `cargo run -p fuzz-logic --example
//! run-one -- TARGET FILE...` (to debug a crash input on stable).

fn main() {
    let mut args = std::env::args().skip(1);
    let target = args.next().expect("usage: run-one TARGET FILE...");
    for file in args {
        let data = std::fs::read(&file).expect("input file");
        assert!(fuzz_logic::run(&target, &data), "unknown target {target}");
        println!("{file}: ok");
    }
}
