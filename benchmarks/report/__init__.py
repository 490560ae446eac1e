"""The benchmark report: tables (DataFrames), figures (matplotlib), HTML and Markdown (see ``build``)."""
