//! SVG figures with plotters, from plain figures (no run): bars with CIs, panels, a confusion
//! heatmap, a grade histogram, a confidence sequence. Text is laid out by plotters' built-in metrics (no system fonts
//! needed) and rendered by whatever displays the SVG.

pub mod curves;
pub mod draw;
pub mod matrix;
pub mod points;
pub mod ranks;
pub mod sequence;

pub use curves::{probability_svg, Curves};
pub use draw::{bars_svg, panels_svg, Panel};
pub use matrix::{confusion_svg, grades_svg, heatmap_svg};
pub use points::{dots_svg, scatter_svg, Dots};
pub use ranks::rank_sets_svg;
pub use sequence::sequence_svg;
