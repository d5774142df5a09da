//! The 31 scored dimensions as remember-core stores them (21 `feel_*`, 10
//! `functional_*`) as one table, the names they are accepted under, and the three
//! composites derived from them exactly as remember-core's `composite-scoring` derives
//! them.
//!
//! Every other part of memlens (validation, import, search filters, sliders, property sort)
//! reads this table instead of naming dimensions itself.

use thiserror::Error;

/// Which layer a dimension belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// Layer 1, a `feel_*` field: a discrete emotion or affect.
    Emotional,
    /// Layer 2, a `functional_*` field: a functional signal.
    Functional,
}

/// One scored dimension: its name, layer and allowed range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeelDim {
    /// Name without its layer's prefix, e.g. `humor`, `salience`, `valence` (two
    /// dimensions share `valence` and `coherence_tension`, one per layer).
    pub name: &'static str,
    /// Field name as remember-core stores it and JSONL writes it, e.g. `feel_humor`,
    /// `functional_salience`.
    pub field: &'static str,
    /// The name the remember-mcp tool schemas give it, when it differs from `field`
    /// (`feel_salience` for `functional_salience`); accepted on input.
    pub alias: Option<&'static str>,
    /// Its layer, for the composites.
    pub layer: Layer,
    /// Lowest allowed value (inclusive).
    pub min: f64,
    /// Highest allowed value (inclusive).
    pub max: f64,
}

impl FeelDim {
    /// True when the dimension counts towards `feel_significance` (layer 1).
    pub fn in_layer1(&self) -> bool {
        self.layer == Layer::Emotional
    }
    /// True when the dimension counts towards `functional_significance` (layer 2).
    pub fn in_layer2(&self) -> bool {
        self.layer == Layer::Functional
    }
}

macro_rules! feel {
    ($name:literal) => {
        feel!($name, 0.0)
    };
    ($name:literal, $min:expr) => {
        FeelDim {
            name: $name,
            field: concat!("feel_", $name),
            alias: None,
            layer: Layer::Emotional,
            min: $min,
            max: 1.0,
        }
    };
}

macro_rules! functional {
    ($name:literal) => {
        FeelDim {
            name: $name,
            field: concat!("functional_", $name),
            alias: None,
            layer: Layer::Functional,
            min: 0.0,
            max: 1.0,
        }
    };
    ($name:literal, alias) => {
        FeelDim {
            alias: Some(concat!("feel_", $name)),
            ..functional!($name)
        }
    };
}

/// Number of scored dimensions.
pub const FEEL_COUNT: usize = 31;

/// The 31 dimensions in remember-core's order (`ALL_SCORING_DIMENSIONS`): layer 1 (21),
/// then layer 2 (10). The first 29 keep the places they had in the 29-field model of
/// memlens's first version (its `feel_salience` … `feel_aesthetic_quality` are the
/// `functional_` fields here), so stored scores keep their meaning.
pub const FEEL_DIMS: [FeelDim; FEEL_COUNT] = [
    feel!("emotional_significance"),
    feel!("vulnerability"),
    feel!("trauma"),
    feel!("humor"),
    feel!("happiness"),
    feel!("sadness"),
    feel!("fear"),
    feel!("anger"),
    feel!("surprise"),
    feel!("disgust"),
    feel!("contempt"),
    feel!("embarrassment"),
    feel!("shame"),
    feel!("guilt"),
    feel!("excitement"),
    feel!("pride"),
    feel!("valence", -1.0),
    feel!("arousal"),
    feel!("dominance"),
    feel!("intensity"),
    feel!("coherence_tension"),
    functional!("salience", alias),
    functional!("urgency", alias),
    functional!("social_weight", alias),
    functional!("agency", alias),
    functional!("novelty", alias),
    functional!("retrieval_utility", alias),
    functional!("narrative_importance", alias),
    functional!("aesthetic_quality", alias),
    functional!("valence"),
    functional!("coherence_tension"),
];

/// Index of a dimension by its stored field name only (`feel_humor`,
/// `functional_valence`), as memlens writes it.
pub fn feel_field_index(field: &str) -> Option<usize> {
    FEEL_DIMS.iter().position(|d| d.field == field)
}

/// Index of a dimension by a name input may use for it: its field name or its
/// remember-mcp alias (`feel_salience` = `functional_salience`).
pub fn input_dim_index(name: &str) -> Option<usize> {
    FEEL_DIMS
        .iter()
        .position(|d| d.field == name || d.alias == Some(name))
}

/// Index of a dimension by its field name, its alias, or a bare name (`humor`); a bare
/// name both layers share (`valence`, `coherence_tension`) means the `feel_` one.
pub fn feel_index(name: &str) -> Option<usize> {
    input_dim_index(name).or_else(|| FEEL_DIMS.iter().position(|d| d.name == name))
}

/// Why a named score cannot be taken.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ScoreError {
    /// No dimension has this name.
    #[error("`{name}` is not a scored dimension")]
    Unknown {
        /// The name given.
        name: String,
    },
    /// A composite was given; composites are computed, never set.
    #[error("`{name}` is derived from the dimensions and cannot be set")]
    Composite {
        /// The composite's name.
        name: String,
    },
    /// The value is outside the dimension's range (or not a number at all).
    #[error("{field}: {} is outside {min}–{max}", super::validate::shown_number(*.value))]
    OutOfRange {
        /// The dimension's field name.
        field: &'static str,
        /// The value given.
        value: f64,
        /// Lowest allowed value.
        min: f64,
        /// Highest allowed value.
        max: f64,
    },
}

/// The dimension an input name means (a field name or a remember-mcp alias) and the
/// value checked against its range: what `remember_create_memory` and
/// `remember_update_memory` arguments, JSONL lines and the curation verbs all go through.
pub fn check_score(name: &str, value: f64) -> Result<usize, ScoreError> {
    let Some(i) = input_dim_index(name) else {
        return Err(if Composite::from_field(name).is_some() {
            ScoreError::Composite { name: name.into() }
        } else {
            ScoreError::Unknown { name: name.into() }
        });
    };
    let dim = &FEEL_DIMS[i];
    if !(dim.min..=dim.max).contains(&value) {
        return Err(ScoreError::OutOfRange {
            field: dim.field,
            value,
            min: dim.min,
            max: dim.max,
        });
    }
    Ok(i)
}

/// The other names inputs may use for dimensions, with the index each one means: the
/// remember-mcp tool schemas' 29-name form calls the layer-2 dimensions
/// `feel_salience` … `feel_aesthetic_quality` (see [`input_dim_index`]).
pub fn input_aliases() -> impl Iterator<Item = (String, usize)> {
    FEEL_DIMS
        .iter()
        .enumerate()
        .filter_map(|(i, d)| d.alias.map(|a| (a.to_string(), i)))
}

/// The three derived significance scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Composite {
    /// Mean of the layer-1 values present, `feel_valence` as its absolute value.
    FeelSignificance,
    /// Mean of the layer-2 values present.
    FunctionalSignificance,
    /// Sum of the two (0–2), or the one present alone.
    TotalSignificance,
}

impl Composite {
    /// All composites in display order.
    pub const ALL: [Composite; 3] = [
        Composite::FeelSignificance,
        Composite::FunctionalSignificance,
        Composite::TotalSignificance,
    ];

    /// Its position in [`Composite::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Field name as shown in JSON and accepted by filters.
    pub fn field(self) -> &'static str {
        match self {
            Composite::FeelSignificance => "feel_significance",
            Composite::FunctionalSignificance => "functional_significance",
            Composite::TotalSignificance => "total_significance",
        }
    }

    /// Composite by its field name.
    pub fn from_field(name: &str) -> Option<Composite> {
        Composite::ALL.into_iter().find(|c| c.field() == name)
    }

    /// Allowed range of the composite's value.
    pub fn range(self) -> (f64, f64) {
        match self {
            Composite::TotalSignificance => (0.0, 2.0),
            _ => (0.0, 1.0),
        }
    }

    /// The composite's value for a set of scores (indexed like [`FEEL_DIMS`]).
    pub fn compute(self, feel: &[Option<f64>; FEEL_COUNT]) -> Option<f64> {
        match self {
            Composite::FeelSignificance => layer_mean(feel, FeelDim::in_layer1),
            Composite::FunctionalSignificance => layer_mean(feel, FeelDim::in_layer2),
            Composite::TotalSignificance => {
                let a = layer_mean(feel, FeelDim::in_layer1);
                let b = layer_mean(feel, FeelDim::in_layer2);
                match (a, b) {
                    (Some(a), Some(b)) => Some(a + b),
                    (one, None) | (None, one) => one,
                }
            }
        }
    }
}

/// remember-core's weighted mean with its default weights (1.0 each), summed in its
/// order and divided once, so the result is the same double it computes.
fn layer_mean(feel: &[Option<f64>; FEEL_COUNT], in_layer: fn(&FeelDim) -> bool) -> Option<f64> {
    let mut weighted_sum = 0.0;
    let mut total_weight = 0.0;
    for (dim, value) in FEEL_DIMS.iter().zip(feel) {
        if let Some(v) = value
            && in_layer(dim)
        {
            let effective = if dim.field == "feel_valence" {
                v.abs()
            } else {
                *v
            };
            weighted_sum += effective * 1.0;
            total_weight += 1.0;
        }
    }
    (total_weight > 0.0).then(|| weighted_sum / total_weight)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_31_unique_fields_21_feel_and_10_functional() {
        let mut names: Vec<_> = FEEL_DIMS.iter().map(|d| d.field).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 31);
        assert_eq!(FEEL_DIMS.iter().filter(|d| d.in_layer1()).count(), 21);
        assert_eq!(FEEL_DIMS.iter().filter(|d| d.in_layer2()).count(), 10);
        for d in &FEEL_DIMS {
            let prefix = if d.in_layer1() {
                "feel_"
            } else {
                "functional_"
            };
            assert_eq!(d.field, format!("{prefix}{}", d.name));
        }
        let valence = &FEEL_DIMS[feel_field_index("feel_valence").unwrap()];
        assert_eq!((valence.min, valence.max), (-1.0, 1.0));
        let functional = &FEEL_DIMS[feel_field_index("functional_valence").unwrap()];
        assert_eq!((functional.min, functional.max), (0.0, 1.0));
        assert!(feel_field_index("functional_coherence_tension").is_some());
    }

    #[test]
    fn every_dimension_is_found_by_its_field_and_alias_and_nothing_else_is() {
        for (i, d) in FEEL_DIMS.iter().enumerate() {
            assert_eq!(input_dim_index(d.field), Some(i), "{}", d.field);
            assert_eq!(feel_field_index(d.field), Some(i), "{}", d.field);
            if let Some(alias) = d.alias {
                assert_eq!(input_dim_index(alias), Some(i), "{alias}");
                assert_eq!(feel_field_index(alias), None, "{alias}");
            }
        }
        let aliases: Vec<_> = FEEL_DIMS.iter().filter_map(|d| d.alias).collect();
        assert_eq!(aliases.len(), 8);
        assert_eq!(aliases[0], "feel_salience");
        assert_eq!(aliases[7], "feel_aesthetic_quality");
        assert_eq!(feel_index("humor"), feel_field_index("feel_humor"));
        assert_eq!(feel_index("valence"), feel_field_index("feel_valence"));
        for other in [
            "",
            "feel_",
            "feel_humour",
            "Humor",
            "feel_feel_humor",
            "functional_humor",
            "significance",
        ] {
            assert_eq!(feel_index(other), None, "{other}");
            assert_eq!(input_dim_index(other), None, "{other}");
        }
    }

    #[test]
    fn check_score_maps_aliases_and_refuses_what_cannot_be_set() {
        let salience = feel_field_index("functional_salience");
        assert_eq!(check_score("feel_salience", 0.5).ok(), salience);
        assert_eq!(check_score("functional_salience", 1.0).ok(), salience);
        assert!(check_score("feel_valence", -1.0).is_ok());
        assert!(matches!(
            check_score("functional_valence", -0.1),
            Err(ScoreError::OutOfRange {
                field: "functional_valence",
                ..
            })
        ));
        assert!(matches!(
            check_score("feel_humor", f64::NAN),
            Err(ScoreError::OutOfRange { .. })
        ));
        assert!(matches!(
            check_score("total_significance", 1.0),
            Err(ScoreError::Composite { .. })
        ));
        assert!(matches!(
            check_score("feel_nothing", 1.0),
            Err(ScoreError::Unknown { .. })
        ));
    }

    #[test]
    fn composites_keep_the_two_valences_apart_and_fall_back_to_the_present_layer() {
        let at = |f: &str| feel_field_index(f).unwrap();
        let mut feel = [None; FEEL_COUNT];
        assert_eq!(Composite::TotalSignificance.compute(&feel), None);
        feel[at("feel_humor")] = Some(0.4);
        feel[at("feel_valence")] = Some(-0.8);
        let l1 = Composite::FeelSignificance.compute(&feel).unwrap();
        assert!((l1 - 0.6).abs() < 1e-12);
        assert_eq!(Composite::FunctionalSignificance.compute(&feel), None);
        feel[at("functional_valence")] = Some(0.2);
        let l2 = Composite::FunctionalSignificance.compute(&feel).unwrap();
        assert!((l2 - 0.2).abs() < 1e-12);
        let total = Composite::TotalSignificance.compute(&feel).unwrap();
        assert!((total - 0.8).abs() < 1e-12);
        let mut only_l2 = [None; FEEL_COUNT];
        only_l2[at("functional_urgency")] = Some(0.3);
        assert_eq!(Composite::TotalSignificance.compute(&only_l2), Some(0.3));
        assert_eq!(Composite::FeelSignificance.compute(&only_l2), None);
    }
}
