//! The 29 `feel_*` dimensions as one table, and the three composites derived from them.
//!
//! Every other part of memlens (validation, import, search filters, sliders, property sort)
//! reads this table instead of naming dimensions itself.

/// Which layer a dimension belongs to; `valence` and `coherence_tension` belong to both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// Layer 1 only: a discrete emotion.
    Emotional,
    /// Layer 2 only: a functional signal.
    Functional,
    /// In both layers (one field).
    Both,
}

/// One `feel_*` dimension: its name, layer and allowed range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FeelDim {
    /// Name without the `feel_` prefix, e.g. `humor`.
    pub name: &'static str,
    /// Field name as written in JSONL, e.g. `feel_humor`.
    pub field: &'static str,
    /// Layer membership, for the composites.
    pub layer: Layer,
    /// Lowest allowed value (inclusive).
    pub min: f64,
    /// Highest allowed value (inclusive).
    pub max: f64,
}

impl FeelDim {
    /// True when the dimension counts towards `feel_significance` (layer 1).
    pub fn in_layer1(&self) -> bool {
        matches!(self.layer, Layer::Emotional | Layer::Both)
    }
    /// True when the dimension counts towards `functional_significance` (layer 2).
    pub fn in_layer2(&self) -> bool {
        matches!(self.layer, Layer::Functional | Layer::Both)
    }
}

macro_rules! dim {
    ($name:literal, $layer:ident) => {
        dim!($name, $layer, 0.0)
    };
    ($name:literal, $layer:ident, $min:expr) => {
        FeelDim {
            name: $name,
            field: concat!("feel_", $name),
            layer: Layer::$layer,
            min: $min,
            max: 1.0,
        }
    };
}

/// Number of `feel_*` dimensions.
pub const FEEL_COUNT: usize = 29;

/// The 29 dimensions in canonical order: layer 1 (21) then the layer-2-only names (8).
pub const FEEL_DIMS: [FeelDim; FEEL_COUNT] = [
    dim!("emotional_significance", Emotional),
    dim!("vulnerability", Emotional),
    dim!("trauma", Emotional),
    dim!("humor", Emotional),
    dim!("happiness", Emotional),
    dim!("sadness", Emotional),
    dim!("fear", Emotional),
    dim!("anger", Emotional),
    dim!("surprise", Emotional),
    dim!("disgust", Emotional),
    dim!("contempt", Emotional),
    dim!("embarrassment", Emotional),
    dim!("shame", Emotional),
    dim!("guilt", Emotional),
    dim!("excitement", Emotional),
    dim!("pride", Emotional),
    dim!("valence", Both, -1.0),
    dim!("arousal", Emotional),
    dim!("dominance", Emotional),
    dim!("intensity", Emotional),
    dim!("coherence_tension", Both),
    dim!("salience", Functional),
    dim!("urgency", Functional),
    dim!("social_weight", Functional),
    dim!("agency", Functional),
    dim!("novelty", Functional),
    dim!("retrieval_utility", Functional),
    dim!("narrative_importance", Functional),
    dim!("aesthetic_quality", Functional),
];

/// Index of a dimension by its field name only (`feel_humor`), as files write it.
pub fn feel_field_index(field: &str) -> Option<usize> {
    FEEL_DIMS.iter().position(|d| d.field == field)
}

/// Index of a dimension by its field name (`feel_humor`) or bare name (`humor`).
pub fn feel_index(name: &str) -> Option<usize> {
    let bare = name.strip_prefix("feel_").unwrap_or(name);
    FEEL_DIMS.iter().position(|d| d.name == bare)
}

/// Index of a dimension by a name an input may give it: its field name, or the name
/// the remember-mcp tool schemas give it (their 29-name form calls the layer-2
/// dimensions `feel_salience` … `feel_aesthetic_quality`; see [`input_aliases`]).
pub fn feel_input_index(name: &str) -> Option<usize> {
    feel_field_index(name).or_else(|| {
        input_aliases()
            .find(|(alias, _)| *alias == name)
            .map(|(_, i)| i)
    })
}

/// The other names inputs may use for dimensions, with the index each one means:
/// `feel_<name>` for every dimension whose field is named otherwise, unless that name
/// is already another dimension's field.
pub fn input_aliases() -> impl Iterator<Item = (String, usize)> {
    FEEL_DIMS.iter().enumerate().filter_map(|(i, d)| {
        let alias = format!("feel_{}", d.name);
        (alias != d.field && feel_field_index(&alias).is_none()).then_some((alias, i))
    })
}

/// The three derived significance scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Composite {
    /// Mean of the layer-1 values present (|valence|).
    FeelSignificance,
    /// Mean of the layer-2 values present (|valence|).
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

fn layer_mean(feel: &[Option<f64>; FEEL_COUNT], in_layer: fn(&FeelDim) -> bool) -> Option<f64> {
    let mut sum = 0.0;
    let mut n = 0usize;
    for (dim, value) in FEEL_DIMS.iter().zip(feel) {
        if let Some(v) = value
            && in_layer(dim)
        {
            sum += v.abs();
            n += 1;
        }
    }
    (n > 0).then(|| sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_29_unique_fields_with_21_and_10_per_layer() {
        let mut names: Vec<_> = FEEL_DIMS.iter().map(|d| d.field).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 29);
        assert_eq!(FEEL_DIMS.iter().filter(|d| d.in_layer1()).count(), 21);
        assert_eq!(FEEL_DIMS.iter().filter(|d| d.in_layer2()).count(), 10);
        let valence = &FEEL_DIMS[feel_index("feel_valence").unwrap()];
        assert_eq!((valence.min, valence.max), (-1.0, 1.0));
    }

    #[test]
    fn every_dimension_is_found_by_its_field_and_its_name_and_nothing_else_is() {
        for (i, d) in FEEL_DIMS.iter().enumerate() {
            assert_eq!(feel_index(d.field), Some(i), "{}", d.field);
            assert_eq!(feel_index(d.name), Some(i), "{}", d.name);
            assert_eq!(feel_field_index(d.field), Some(i), "{}", d.field);
            assert_eq!(feel_field_index(d.name), None, "{}", d.name);
        }
        for other in [
            "",
            "feel_",
            "feel_humour",
            "Humor",
            "feel_feel_humor",
            "significance",
        ] {
            assert_eq!(feel_index(other), None, "{other}");
        }
    }

    #[test]
    fn composites_use_absolute_valence_and_fall_back_to_the_present_layer() {
        let mut feel = [None; FEEL_COUNT];
        assert_eq!(Composite::TotalSignificance.compute(&feel), None);
        feel[feel_index("humor").unwrap()] = Some(0.4);
        feel[feel_index("valence").unwrap()] = Some(-0.8);
        let l1 = Composite::FeelSignificance.compute(&feel).unwrap();
        assert!((l1 - 0.6).abs() < 1e-12);
        let l2 = Composite::FunctionalSignificance.compute(&feel).unwrap();
        assert!((l2 - 0.8).abs() < 1e-12);
        let total = Composite::TotalSignificance.compute(&feel).unwrap();
        assert!((total - 1.4).abs() < 1e-12);
        let mut only_l2 = [None; FEEL_COUNT];
        only_l2[feel_index("urgency").unwrap()] = Some(0.3);
        assert_eq!(Composite::TotalSignificance.compute(&only_l2), Some(0.3));
        assert_eq!(Composite::FeelSignificance.compute(&only_l2), None);
    }
}
