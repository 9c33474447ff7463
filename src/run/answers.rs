//! completions.jsonl, written while a calibrate run rates: each sample's answer (so the run
//! need keep no answer text), where the parser read the verdict, and its cost.

use crate::run::lines::{write_ordered, AnswerLine, GradeShare};
use anyhow::{Context, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where the parser read the verdict, in characters (code points) of the completion.
fn char_span(s: &crate::raters::SampleTrace) -> Option<[usize; 2]> {
    let (text, (a, b)) = (&s.completion.as_ref()?.text, s.span?);
    let chars = |end: usize| text.get(..end).map(|t| t.chars().count());
    Some([chars(a)?, chars(b)?])
}

/// completions.jsonl's writer. Lines come in `ratings.csv`'s order (part, then item, then
/// sample), which its `completion_ref` column counts on, while the answers come a block of
/// items at a time across the parts: each part's lines go to a file of its own in the run
/// directory (`.completions-K.jsonl`), joined in part order by `finish` (one part's file is
/// renamed). A run stopped before `finish` keeps them there.
#[derive(Debug)]
pub struct AnswerLog {
    parts: Vec<(PathBuf, BufWriter<File>)>,
    path: PathBuf,
    names: Vec<String>,
    error: Option<std::io::Error>,
}

impl AnswerLog {
    /// Starts `dir/completions.jsonl` for parts named `names`.
    pub fn create(dir: &Path, names: Vec<String>) -> Result<Self> {
        let mut parts = Vec::with_capacity(names.len());
        for k in 0..names.len() {
            let path = dir.join(format!(".completions-{k}.jsonl"));
            let file =
                File::create(&path).with_context(|| format!("creating '{}'", path.display()))?;
            parts.push((path, BufWriter::new(file)));
        }
        Ok(Self {
            parts,
            path: dir.join("completions.jsonl"),
            names,
            error: None,
        })
    }

    /// Writes a rating's answers for part `k`. A write error is kept for `finish`.
    pub fn add(&mut self, k: usize, rating: &crate::raters::Rating) {
        let name = self.names.get(k).map_or("", String::as_str);
        let Some((_, out)) = self.parts.get_mut(k) else {
            return;
        };
        for s in &rating.samples {
            use crate::verdicts::probability::Reading;
            let c = s.completion.as_ref();
            let (p_response2, expected_grade, grade_distribution) = match &s.probability {
                Some(Reading::Pair(p)) => (Some(*p), None, None),
                Some(Reading::Grade {
                    expected,
                    distribution,
                }) => (
                    None,
                    Some(*expected),
                    Some(
                        distribution
                            .iter()
                            .map(|&(grade, p)| GradeShare { grade, p })
                            .collect(),
                    ),
                ),
                None => (None, None, None),
            };
            let line = AnswerLine {
                config: name.to_string(),
                id: rating.id.clone(),
                sample: s.sample,
                side: s.side,
                grade: s.grade,
                shared: s.shared,
                span: char_span(s),
                text: c.map(|x| x.text.clone()),
                verdict: s.verdict,
                problem: s.problem.clone(),
                latency_ms: c.map(|x| x.latency_ms),
                tokens_in: c.map(|x| x.tokens_in),
                tokens_out: c.map(|x| x.tokens_out),
                cached: c.map(|x| x.cached),
                p_response2,
                expected_grade,
                grade_distribution,
                probability_problem: s.probability_problem.clone(),
                reasoning: c.and_then(|x| x.reasoning.clone()),
                tokens_reasoning: c.map(|x| x.tokens_reasoning).filter(|&n| n > 0),
                finish_reason: c
                    .and_then(|x| x.finish_reason.clone())
                    .filter(|r| r == "length"),
            };
            if self.error.is_none() {
                self.error = write_ordered(out, &line).err();
            }
        }
    }

    /// Joins the parts' files into completions.jsonl, in part order, and removes them; the
    /// first write error, if any.
    pub fn finish(mut self) -> Result<()> {
        let joined = self.join();
        match self.error.take().map_or(joined, Err) {
            Ok(()) => Ok(()),
            Err(e) => Err(e).with_context(|| format!("writing '{}'", self.path.display())),
        }
    }

    fn join(&mut self) -> std::io::Result<()> {
        if let [(one, out)] = self.parts.as_mut_slice() {
            out.flush()?;
            return std::fs::rename(one, &self.path);
        }
        let mut all = BufWriter::new(File::create(&self.path)?);
        for (path, out) in &mut self.parts {
            out.flush()?;
            std::io::copy(&mut File::open(&*path)?, &mut all)?;
        }
        all.flush()?;
        for (path, _) in &self.parts {
            std::fs::remove_file(path)?;
        }
        Ok(())
    }
}
