"""Output: tables (table/JSON/CSV), files (CSV/Parquet), figures and the HTML report."""
