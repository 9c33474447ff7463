//! The one integration-test binary: metric fixtures from scipy/sklearn and the CLI end to end.

mod analyze_cli;
mod annotators;
mod batch;
mod bias;
mod cache_cli;
mod calibrate_cli;
mod common;
mod consistency;
mod data_cli;
mod endpoint;
mod groups;
mod hub_download;
mod judge_cli;
mod judgebench;
mod layers;
mod llmbar_replay;
mod metrics_fixtures;
mod mock_http;
mod plan;
mod pointwise;
mod real_data;
mod report_dirs;
mod report_html;
mod rewardbench2;
mod rewardbench2_judges;
mod terminal;
