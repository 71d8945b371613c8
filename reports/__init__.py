"""splinebench reports: tables, plots, an HTML index and a regression compare,
built only from result directories written by `splinebench run`
(schema: results/README.md)."""
