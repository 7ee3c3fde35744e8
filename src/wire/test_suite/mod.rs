//! Tests across the wire modules: captured stock datagrams, command
//! round trips, the builder, and a bounded fuzz run.

mod builder;
mod captured;
mod captures;
mod commands;
mod fuzz;
