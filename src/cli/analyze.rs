//! `raterlab analyze`: agreement statistics for labels you already have.

use clap::Args;
use std::path::PathBuf;

const ANALYZE_EXAMPLES: &str = "\
Examples:
  # one file with id, gold and rating columns, per reward-bench subset
  raterlab analyze --input data/example-ratings.csv --group-col subset

  # gold labels and a judge's ratings in separate files, joined on their ids
  raterlab analyze --gold gold.parquet --ratings judge.jsonl --rating-col verdict

  # machine-readable output and a tidy CSV for a paper
  raterlab analyze --input ratings.parquet --json --csv metrics.csv

  # the tables and plots as one HTML page to open in a browser
  raterlab analyze --input data/example-ratings.csv --group-col subset --html analysis.html

  # a judge's probabilities beside its verdicts: calibration, AUC, selective accuracy
  raterlab analyze --input run/ratings.csv --probability p_response2

  # three annotators per item (gold = their majority) and a judge: the human ceiling
  raterlab analyze --input panel.jsonl --annotators a1,a2,a3 --rating-col judge

  # each model's win rate from a run's ratings, ranked against a reference table
  raterlab analyze --input run/ratings.csv --generators generator1,generator2 \
    --prompt-col pair_id --reference arena.csv --reference-map model=model,score=arena_elo

  # AlpacaEval's evaluator measures: four humans per pair in long form, a judge's four seeds
  raterlab analyze --gold crossannotations.json --ratings seed0.json --ratings seed1.json \
    --ratings seed2.json --ratings seed3.json --id-col instruction,output_1,output_2 \
    --gold-col preference --rating-col preference --gold-map 1=-1,2=1 --rating-map 1=-1,2=1

Labels are integers: for pairwise preferences -1 (response 1 better), 0 (tie),
1 (response 2 better); any other integer scale (e.g. a 1-5 Likert score) works too.

Guide: docs/guide.md#raterlab-analyze-agreement-statistics-for-ratings-you-already-have";

/// Agreement statistics for ratings you already have (from any judge, human or tool).
///
/// Reports accuracy, Cohen's kappa (unweighted, linear, quadratic), Spearman's rho and
/// Kendall's tau-b with p-values and percentile-bootstrap 95% confidence intervals, and the
/// confusion matrix. Values match scikit-learn and scipy.
#[derive(Debug, Args)]
#[command(after_help = ANALYZE_EXAMPLES)]
pub struct AnalyzeArgs {
    /// A CSV, Parquet or JSONL file with a gold column and a rating column.
    #[arg(long, value_name = "FILE", required_unless_present = "gold", conflicts_with_all = ["gold", "ratings"])]
    pub input: Option<PathBuf>,

    /// A file of gold labels (id + gold column); use with --ratings.
    #[arg(long, value_name = "FILE", requires = "ratings")]
    pub gold: Option<PathBuf>,

    /// A file of ratings (id + rating column), joined to --gold on the ids both files have.
    /// Repeat it for a judge's samples, one file each (e.g. its seeds).
    #[arg(long, value_name = "FILE", requires = "gold")]
    pub ratings: Vec<PathBuf>,

    /// Column holding the pair id [default: id; with --input, rows stand in when the file has no id column]. Several columns make one key: --id-col instruction,output_1,output_2
    #[arg(long, value_name = "COL[,COL...]")]
    pub id_col: Option<String>,

    /// The column that tells several annotations of one item apart, in long form (rows that
    /// repeat an item's key) [default: annotator_index, seed or sample, when the file has one].
    /// In --gold they are the annotators, in --ratings the judge's samples; without such a
    /// column a repeated key is an error.
    #[arg(long, value_name = "COL", requires = "gold")]
    pub annotator_col: Option<String>,

    /// Long form: count the first N annotations of each gold item; items with fewer readable
    /// ones are left out and counted [default: the fewest any item has].
    #[arg(long, value_name = "N", requires = "gold", value_parser = clap::value_parser!(u32).range(1..))]
    pub annotations_per_item: Option<u32>,

    /// Long form: the columns of the two responses, for AlpacaEval's length and list
    /// preferences and its `longest` evaluator [default: output_1,output_2 when the gold file
    /// has them].
    #[arg(long, value_name = "COL1,COL2", requires = "gold")]
    pub texts: Option<String>,

    /// The ratings file's id column, when it differs from --id-col (two-file form).
    #[arg(long, value_name = "COL", requires = "ratings")]
    pub ratings_id_col: Option<String>,

    /// Column holding the gold label (an empty cell: the item is unlabelled, counted and left
    /// out of every agreement figure).
    #[arg(long, value_name = "COL", default_value = "gold")]
    pub gold_col: String,

    /// Column holding the rating under test. Several, comma-separated (one file): each is a
    /// configuration, compared as calibrate compares them (the best, paired tests, Holm).
    #[arg(long, value_name = "COL[,COL...]", default_value = "rating")]
    pub rating_col: String,

    /// Several annotators: one column each (read with --gold-map). Gold becomes their
    /// majority, and the report adds their agreement (pairwise Cohen's kappa, Fleiss' kappa,
    /// Krippendorff's alpha, Gwet's AC1), the human ceiling and the judge beside it.
    #[arg(
        long,
        value_name = "COL,COL,...",
        value_delimiter = ',',
        conflicts_with_all = ["gold", "ratings"]
    )]
    pub annotators: Vec<String>,

    /// With --annotators: items without a majority are left out of the judge's scores (drop)
    /// or scored as a tie (tie); either way they are counted.
    #[arg(long, value_name = "drop|tie", default_value = "drop",
          value_parser = clap::value_parser!(crate::dataset::labels::NoMajority))]
    pub no_majority: crate::dataset::labels::NoMajority,

    /// A column of probabilities that the item's label is the positive one (pairwise: P(response
    /// 2 better), e.g. ratings.csv's p_response2): adds Brier, log loss, ECE, AUC, expected
    /// accuracy, the reliability table and selective accuracy. One-file form; gold ties are
    /// left out.
    #[arg(long, value_name = "COL", conflicts_with_all = ["gold", "ratings", "annotators"])]
    pub probability: Option<String>,

    /// A second judge's rating column, compared with --rating-col as the items come, in file
    /// order (with --sequential). One-file form.
    #[arg(long, value_name = "COL", conflicts_with_all = ["gold", "ratings", "annotators"])]
    pub compare_col: Option<String>,

    /// The anytime-valid comparison of --rating-col (A) and --compare-col (B): a 95% interval
    /// for (1 + accuracy A − accuracy B)/2 valid at every item at once (confseq's predictable
    /// mixture empirical Bernstein), the first item at which it excludes ½, and the interval at
    /// items 100, 1,000 and the last.
    #[arg(long)]
    pub sequential: bool,

    /// Corrected estimates from few human labels and many judge verdicts: the rows without a
    /// gold label (an empty gold cell; two files: a rating whose id has no gold row) are the
    /// unlabelled set. The share of items labelled --estimate-label by the judge alone, the
    /// humans alone, PPI, PPI++ (prediction-powered inference) and Rogan–Gladen, each with a
    /// 1 − α interval, and the judge's worth in human labels; with --generators, each model's
    /// win rate and rank-set from humans, the judge and both (prediction-powered ranking).
    #[arg(long, conflicts_with = "annotators")]
    pub estimate: bool,

    /// --estimate: the label whose share is estimated, as the gold reads it after --gold-map (a
    /// number, e.g. -1, or a value --gold-map maps, e.g. model_a) [default: -1, response 1
    /// better; with --label-prob, 1]
    #[arg(
        long,
        value_name = "L",
        requires = "estimate",
        allow_hyphen_values = true
    )]
    pub estimate_label: Option<String>,

    /// The error level: --estimate's intervals each cover with probability 1 − α; --sequential's
    /// comparison errs with probability at most α; --pac's guarantee holds with probability at
    /// least 1 − α.
    #[arg(long, value_name = "ALPHA", default_value_t = crate::evaluation::paired::ALPHA, value_parser = super::alpha)]
    pub alpha: f64,

    /// --estimate: each row's chance of being labelled (active labelling's π, e.g. plan
    /// --active --out's label_prob), gold only on the drawn rows: adds the active estimate
    /// mean(p + (y − p)·ξ/π) (Zrnic and Candès, 2024), of label 1's share unless
    /// --estimate-label says otherwise (p is the probability of label 1, as plan --active
    /// reads it). One-file form.
    #[arg(long, value_name = "COL", requires = "estimate")]
    pub label_prob: Option<String>,

    /// PAC labelling (Candès, Ilyas and Zrnic, 2025): the rows with gold are the humans'
    /// uniform first round; says which of the rest must go to a human (uncertainty at or above
    /// the threshold) so that every label has error at most ε with probability 1 − α.
    #[arg(long, requires = "uncertainty_col")]
    pub pac: bool,

    /// --pac: the judge's uncertainty per row (e.g. 1 − its stated confidence).
    #[arg(long, value_name = "COL", requires = "pac")]
    pub uncertainty_col: Option<String>,

    /// --pac: the error the labelled set may have at most.
    #[arg(long, value_name = "E", default_value_t = 0.05)]
    pub epsilon: f64,

    /// --pac: the authors' asymptotic bound (clt) or their betting bound (betting, valid at
    /// any sample size).
    #[arg(long, value_name = "clt|betting", default_value = "betting",
          value_parser = clap::value_parser!(crate::metrics::pac::Bound))]
    pub pac_bound: crate::metrics::pac::Bound,

    /// --pac: write the ids to label (column `id`) to this CSV file.
    #[arg(long, value_name = "FILE.csv", requires = "pac")]
    pub pac_out: Option<PathBuf>,

    /// The system level: the columns naming the models that wrote response 1 and response 2
    /// (e.g. a run's ratings.csv generator1,generator2): each model's win rate (or
    /// Bradley–Terry Elo when models meet each other) with intervals. One-file form.
    #[arg(long, value_name = "COL1,COL2", conflicts_with_all = ["gold", "ratings", "annotators"])]
    pub generators: Option<String>,

    /// With --generators: the column whose rows move together in the bootstrap (the prompt,
    /// e.g. pair_id) [default: each row on its own].
    #[arg(long, value_name = "COL", requires = "generators")]
    pub prompt_col: Option<String>,

    /// With --generators: model scores to compare the ranking with (a table read with
    /// --reference-map), or `gold` for the ranking the gold labels give.
    #[arg(long, value_name = "FILE|gold", requires = "generators")]
    pub reference: Option<String>,

    /// The reference table's columns: model=COL,score=COL.
    #[arg(long, value_name = "model=COL,score=COL", requires = "reference")]
    pub reference_map: Vec<String>,

    /// Also report each group of this column (e.g. subset) beside the overall row.
    #[arg(long, value_name = "COL")]
    pub group_col: Option<String>,

    /// The label set, in order [default: -1,0,1 when every label fits, else the labels seen];
    /// or a label store (`raterlab label`): one existing file, whose labels are the gold of
    /// --input's rows by id (the file's own gold column wins unless --labels-override)
    #[arg(
        long,
        value_name = "L1,L2,...|STORE",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub labels: Option<Vec<String>>,

    /// With --labels STORE: the store's gold even where the file has a gold column.
    #[arg(long)]
    pub labels_override: bool,

    /// Read these gold values as these labels, e.g. 1=-1,2=1,0=0.
    #[arg(
        long,
        value_name = "VALUE=LABEL,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub gold_map: Vec<String>,

    /// Read these rating values as these labels, e.g. 1=-1,2=1,Tie=0.
    #[arg(
        long,
        value_name = "VALUE=LABEL,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub rating_map: Vec<String>,

    /// What to do with a missing or unreadable label: stop with an error, or drop the row
    /// (counted in the report).
    #[arg(long, value_name = "error|drop", default_value = "error",
          value_parser = clap::value_parser!(crate::run::settings::Unreadable))]
    pub unreadable: crate::run::settings::Unreadable,

    /// The scale one response is graded on, which says what the judge is measured by:
    /// binary (0/1), LO-HI (integer grades, e.g. 1-5) or categories:A,B,C [default: read from
    /// the labels: 0 and 1 binary, names categories, three grades or more graded]
    #[arg(long, value_name = "binary|LO-HI|categories:A,B,C",
          value_parser = crate::metrics::scale::Scale::parse)]
    pub scale: Option<crate::metrics::scale::Scale>,

    #[command(flatten)]
    pub alt_test: super::AltTestArgs,

    /// Bootstrap resamples for the 95% confidence intervals (0 turns them off).
    #[arg(long, value_name = "N", default_value_t = crate::evaluation::DEFAULT_BOOTSTRAP)]
    pub bootstrap: usize,

    /// Seed of the bootstrap's random generator (ChaCha8).
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Print one JSON document to stdout instead of tables.
    #[arg(long)]
    pub json: bool,

    /// Also write the results as a tidy CSV (scope, metric, value, ci_lo, ci_hi).
    #[arg(long, value_name = "OUT")]
    pub csv: Option<PathBuf>,

    /// Also write one self-contained HTML page with the tables and plots (opens offline).
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
}
