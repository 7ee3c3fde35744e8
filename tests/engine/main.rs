//! The engine's integration tests, one module per topic, in one binary
//! (one link of the library instead of one per topic). Tests that need a
//! process of their own are binaries of their own: `tests/net_time.rs` and
//! `tests/net_time_unset.rs` (the process-wide clock), `tests/no_leaks.rs`
//! (allocator hooks that count the whole process), `tests/dtls/`.
//!
//! Run one topic with `cargo test --test engine sim_recovery::`.

// The simulated network the `sim_*`, `hostile` and `wrapping_arithmetic`
// tests run on.
mod sim;

// The engine on the simulated network.
mod hostile;
mod sim_basic;
mod sim_counters;
mod sim_deadlines;
mod sim_early_acks;
mod sim_flood;
mod sim_lifecycle;
mod sim_long_timeouts;
mod sim_lossy;
mod sim_options;
mod sim_overload;
mod sim_path_base;
mod sim_reasons;
mod sim_reassembly;
mod sim_recovery;
mod sim_send_limit;
mod sim_timers;
mod wrapping_arithmetic;

// The C API's sockets and addresses, and real hosts over 127.0.0.1.
mod net_address;
mod net_socket;
mod netsim_hosts;
mod path_mtu;
mod thread_safe_send;

// The range coder against stock's vectors.
mod range_coder;

// Checks that read the sources and the docs.
mod docs_paths;
mod module_layers;
mod platform_layer;
