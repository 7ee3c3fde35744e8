//! Compares enet-rs's `#[repr(C)]` types and constants with the stock ENet
//! 1.3.17 header as clang lays it out (via bindgen, in `build.rs`).
//! The comparisons themselves are generated; see `tests/layout.rs`.

#[allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code,
    clippy::all
)]
pub mod stock {
    include!(concat!(env!("OUT_DIR"), "/stock.rs"));
}

/// One size, alignment or offset: ours against stock's.
#[derive(Debug)]
pub struct LayoutCheck {
    pub what: &'static str,
    pub ours: usize,
    pub stock: usize,
}

/// One enum value or constant: ours against stock's.
#[derive(Debug)]
pub struct ValueCheck {
    pub what: &'static str,
    pub ours: i64,
    pub stock: i64,
}

/// The size of the field a projection points at, without reading it.
fn field_size<S, F>(_project: impl Fn(&S) -> *const F) -> usize {
    core::mem::size_of::<F>()
}

include!(concat!(env!("OUT_DIR"), "/checks.rs"));
