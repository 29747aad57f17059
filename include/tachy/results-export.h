/* results-export.h - the result model (results.h) written out
 * (results-export.c): tachy's JSON (docs/json-schema.md), hyperfine's CSV
 * columns, and the table of the means in markdown, AsciiDoc or Org. */
#ifndef TACHY_RESULTS_EXPORT_H
#define TACHY_RESULTS_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "tachy/error.h"

struct ty_jsonw;
struct ty_results;

/* Write S to FP as one CSV field (RFC 4180): its control characters
 * escaped as \xHH (ty_utf8_escape: a line break, ESC, BEL, C1; reversible),
 * then quoted, with inner quotes doubled, when it holds a comma or a
 * quote. */
void ty_results_csv_field(FILE *fp, const char *s);

/* Writes the members of the "environment" object (machine facts) to W. */
typedef void (*ty_results_env_fn)(struct ty_jsonw *w, void *ctx);

/* The default environment: kernel, cores, tachy's version, date. */
void ty_results_env_default(struct ty_jsonw *w, void *ctx);

/* Write RS as JSON (docs/json-schema.md) to FP; ENV fills "environment"
 * (NULL: ty_results_env_default). Returns 0 or -EIO. */
int ty_results_write_json(const struct ty_results *rs, FILE *fp, ty_results_env_fn env,
			  void *env_ctx);
/* hyperfine's CSV columns (command,mean,stddev,median,user,system,min,max,
 * then parameter_NAME) in seconds. */
int ty_results_write_csv(const struct ty_results *rs, FILE *fp);
/* A markdown table in UNIT ("s", "ms", "us", "ns"), relative to the fastest. */
int ty_results_write_markdown(const struct ty_results *rs, FILE *fp, const char *unit);

/* The table of ty_results_write_markdown in markdown, AsciiDoc or Org
 * (hyperfine's --export-asciidoc and --export-orgmode), its rows in ORDER
 * (indices into RS->r, RS->n of them; NULL: as run), each name escaped as
 * text for the format. Returns 0 or -EIO. */
enum ty_table { TY_TABLE_MARKDOWN, TY_TABLE_ASCIIDOC, TY_TABLE_ORGMODE };
int ty_results_write_table(const struct ty_results *rs, FILE *fp, enum ty_table fmt,
			   const char *unit, const size_t *order);

enum ty_export { TY_EXPORT_JSON, TY_EXPORT_CSV, TY_EXPORT_MARKDOWN };
/* Write RS to PATH ("-" is stdout) whole or not at all (outfile.h).
 * Returns 0, or a negative errno with E set. */
int ty_results_export(const struct ty_results *rs, enum ty_export kind, const char *path,
		      const char *unit, ty_results_env_fn env, void *env_ctx, struct ty_error *e);

#endif
