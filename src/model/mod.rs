//! The memory record, its rules and the values derived from it.

pub mod derived;
pub mod feel;
pub mod json;
pub mod keys;
pub mod memory;
pub mod timestamp;
pub mod validate;

pub use derived::ConfidenceTier;
pub use feel::{
    Composite, FEEL_COUNT, FEEL_DIMS, FeelDim, Layer, feel_field_index, feel_index,
    feel_input_index, input_aliases,
};
pub use keys::is_model_key;
pub use memory::{Memory, Relationship, Scope, Source, Status};
pub use timestamp::Timestamp;
pub use validate::{Checked, FieldError};
