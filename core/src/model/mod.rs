//! The memory record, its rules and the values derived from it.

pub mod curated;
pub mod derived;
pub mod feel;
pub mod json;
pub mod keys;
pub mod memory;
pub mod timestamp;
pub mod trust;
pub mod validate;

pub use curated::Curated;
pub use derived::ConfidenceTier;
pub use feel::{
    Composite, FEEL_COUNT, FEEL_DIMS, FeelDim, Layer, ScoreError, check_score, feel_field_index,
    feel_index, input_aliases, input_dim_index,
};
pub use keys::is_model_key;
pub use memory::{EMPTY_HEADLINE, Memory, Rating, Relationship, Scope, Source, Status};
pub use timestamp::Timestamp;
pub use trust::TrustLevel;
pub use validate::{Checked, FieldError};

/// The type hidden unless the types filter names it (hivelore's default).
pub const SESSION_RECAP: &str = "session_recap";
