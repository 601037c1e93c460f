//! The napi binding. It converts JavaScript values to the core crates' types
//! and back, and holds no logic of its own.

mod completions;
mod local_memory;
mod saver;
