//! How things are written, whatever they show: numbers and names as shown (`format`), the text
//! table (`table`), JSON and CSV (`json`, `csv`), HTML pages (`html`, `templates/`),
//! SVG figures (`svg`), progress bars (`progress`), JSONL read back a line at a time (`lines`).

pub mod csv;
pub mod format;
pub mod html;
pub mod json;
pub mod progress;
pub mod svg;
pub mod table;
pub mod term;
