//! Black-box tests: each runs the real `bloomjoin` binary in a fresh temporary directory.

mod util;

mod append_cli;
mod coalesce_keys_cli;
mod composite_keys;
mod computed_select_cli;
mod dry_run_cli;
mod filter_cli;
mod filter_job_cli;
mod golden;
mod hive_cli;
mod int_keys;
mod jobs_cli;
mod join_cli;
mod join_guards;
mod key_types;
mod nulls_equal_cli;
mod overwrite_partitions_cli;
mod partition_by_cli;
mod reliability;
mod sbbf_cli;
mod spark_cli;
mod spark_golden;
mod train_cli;
mod where_cli;
