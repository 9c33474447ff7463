//! `raterlab._native`: the raterlab crate behind the Python module. Each function hands
//! Python's arguments to `raterlab::api` (the code the command runs) with the GIL released,
//! sends what the command would write on stderr to `sys.stderr` (a notebook shows it), and
//! turns an error into `raterlab.Error` carrying the command's message.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString};
use raterlab::dataset::frame::Values;
use raterlab::report::media::format::{redirect_stderr, Sink};
use std::sync::Arc;

create_exception!(
    raterlab,
    Error,
    PyException,
    "A raterlab command failed; the message is the command's error line (what, where, how to fix it)."
);

/// While alive, stderr text goes to Python's `sys.stderr`.
struct ToPythonStderr;

impl ToPythonStderr {
    fn start() -> Self {
        let sink: Sink = Arc::new(|text: &str| {
            Python::attach(|py| {
                if let Ok(stderr) = py.import("sys").and_then(|sys| sys.getattr("stderr")) {
                    let _ = stderr.call_method1("write", (text,));
                    let _ = stderr.call_method0("flush");
                }
            })
        });
        redirect_stderr(Some(sink));
        Self
    }
}

impl Drop for ToPythonStderr {
    fn drop(&mut self) {
        redirect_stderr(None);
    }
}

/// A `raterlab.Error` with the message the command prints (without `error: `) and, as
/// `exit_code`, the command's exit code (2 for bad input).
fn to_python(py: Python<'_>, err: anyhow::Error) -> PyErr {
    let error = Error::new_err(format!("{err:#}"));
    let _ = error
        .value(py)
        .setattr("exit_code", raterlab::error::exit_code(&err));
    error
}

/// Runs the command line `argv` (`argv[0]` is the program's name) as the `raterlab` binary
/// does, printing to the process's stdout and stderr; returns the exit code.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| raterlab::api::command_line(argv))
}

/// One column of Python values: ints (and bools), floats (NaN is missing) or text; None is
/// missing. A column holding text holds every other value as its `str()`.
fn column(values: &Bound<'_, PyList>) -> PyResult<Values> {
    #[derive(PartialEq, PartialOrd, Clone, Copy)]
    enum Kind {
        Int,
        Float,
        Text,
    }
    let mut kind = Kind::Int;
    for v in values.iter() {
        let k = if v.is_none() || v.is_instance_of::<PyBool>() || v.is_instance_of::<PyInt>() {
            Kind::Int
        } else if v.is_instance_of::<PyFloat>() {
            Kind::Float
        } else {
            Kind::Text
        };
        if k > kind {
            kind = k;
        }
    }
    let mut ints = Vec::new();
    let mut floats = Vec::new();
    let mut texts = Vec::new();
    for v in values.iter() {
        if v.is_none() {
            ints.push(None);
            floats.push(None);
            texts.push(None);
            continue;
        }
        match kind {
            Kind::Int => ints.push(Some(v.extract::<i64>()?)),
            Kind::Float => {
                let f: f64 = v.extract()?;
                floats.push((!f.is_nan()).then_some(f));
            }
            Kind::Text => texts.push(Some(match v.cast::<PyString>() {
                Ok(s) => s.to_string(),
                Err(_) => v.str()?.to_string(),
            })),
        }
    }
    Ok(match kind {
        Kind::Int => Values::Int(ints),
        Kind::Float => Values::Float(floats),
        Kind::Text => Values::Text(texts),
    })
}

/// Named columns of values.
fn table(columns: &[(String, Bound<'_, PyList>)]) -> PyResult<Vec<(String, Values)>> {
    columns
        .iter()
        .map(|(n, v)| Ok((n.clone(), column(v)?)))
        .collect()
}

/// `analyze` on named columns of values with the command's flags; the JSON `analyze --json`
/// prints.
#[pyfunction]
fn analyze(
    py: Python<'_>,
    name: String,
    columns: Vec<(String, Bound<'_, PyList>)>,
    flags: Vec<String>,
) -> PyResult<String> {
    let columns = table(&columns)?;
    let _stderr = ToPythonStderr::start();
    py.detach(|| raterlab::api::analyze(&name, columns, &flags))
        .map(|v| v.to_string())
        .map_err(|e| to_python(py, e))
}

/// `analyze` on two tables of columns joined on their ids (the long form's gold annotations
/// and the judge's ratings): the JSON `analyze --json` prints.
#[pyfunction]
fn analyze_two(
    py: Python<'_>,
    names: (String, String),
    gold: Vec<(String, Bound<'_, PyList>)>,
    ratings: Vec<(String, Bound<'_, PyList>)>,
    flags: Vec<String>,
) -> PyResult<String> {
    let (gold, ratings) = (table(&gold)?, table(&ratings)?);
    let _stderr = ToPythonStderr::start();
    py.detach(|| raterlab::api::analyze_two((&names.0, &names.1), gold, ratings, &flags))
        .map(|v| v.to_string())
        .map_err(|e| to_python(py, e))
}

/// `calibrate` with the command's flags: the JSON `calibrate --json` prints and the run
/// directory.
#[pyfunction]
fn calibrate(py: Python<'_>, flags: Vec<String>) -> PyResult<(String, String)> {
    let _stderr = ToPythonStderr::start();
    py.detach(|| raterlab::api::calibrate(&flags))
        .map(|(v, dir)| (v.to_string(), dir.display().to_string()))
        .map_err(|e| to_python(py, e))
}

/// `plan` with the command's flags: the JSON `plan --json` prints.
#[pyfunction]
fn plan(py: Python<'_>, flags: Vec<String>) -> PyResult<String> {
    let _stderr = ToPythonStderr::start();
    py.detach(|| raterlab::api::plan(&flags))
        .map(|v| v.to_string())
        .map_err(|e| to_python(py, e))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_two, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    Ok(())
}
