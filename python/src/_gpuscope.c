/* SPDX-License-Identifier: MIT */
/*
 * _gpuscope: the C core of the Python package, over the library's public
 * headers. Built against the limited API (one build for every CPython from
 * 3.9), it loads and analyses traces in process and hands back plain
 * Python objects: each table a list of dicts whose keys are the JSON
 * report's; gpuscope/__init__.py makes DataFrames of them.
 *
 * The GIL is released while the library loads and analyses; the library's
 * error causes are per thread (gpuscope/error.h), so two analyses on two
 * threads do not mix their messages. A failure raises gpuscope.Error with
 * the message the command line prints after "gpuscope: error: ".
 */
#define Py_LIMITED_API 0x03090000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <gpuscope/error.h>
#include <gpuscope/import.h>
#include <gpuscope/job.h>
#include <gpuscope/names.h>
#include <gpuscope/operators.h>
#include <gpuscope/report.h>
#include <gpuscope/results.h>
#include <gpuscope/steps.h>
#include <gpuscope/text.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ANALYSIS_CAPSULE "gpuscope._analysis"
#define JOB_CAPSULE "gpuscope._job"

static PyObject *gs_py_error; /* gpuscope.Error */

static PyObject *text(const char *s);

/* ---- errors ---- */

/* gpuscope.Error with the cause chain as its message, named after `what`
 * as the command line does, and each cause apart in its `causes`
 * attribute (outermost first); the causes are cleared. */
static PyObject *raise_chain(gs_status st, const char *what)
{
	char chain[GS_ERROR_MAX_CAUSES * GS_ERROR_MSG_MAX];
	PyObject *causes, *msg, *exc = NULL;
	int n = gs_error_count();

	if (n > 0)
		gs_error_format(chain, sizeof(chain));
	else
		snprintf(chain, sizeof(chain), "%s", gs_status_str(st));
	causes = PyList_New(0);
	for (int i = n - 1; causes && i >= 0; i--) {
		PyObject *c = text(gs_error_message(i));

		if (!c || PyList_Append(causes, c) < 0)
			Py_CLEAR(causes);
		Py_XDECREF(c);
	}
	gs_error_clear();
	if (what && *what && !strstr(chain, what))
		msg = PyUnicode_FromFormat("%s: %s", what, chain);
	else
		msg = text(chain);
	if (causes && msg)
		exc = PyObject_CallFunctionObjArgs(gs_py_error, msg, NULL);
	if (exc && PyObject_SetAttrString(exc, "causes", causes) < 0)
		Py_CLEAR(exc);
	if (exc)
		PyErr_SetObject(gs_py_error, exc);
	Py_XDECREF(exc);
	Py_XDECREF(msg);
	Py_XDECREF(causes);
	return NULL;
}

/* ---- building rows ---- */

/* Trace strings are bytes: invalid UTF-8 becomes U+FFFD rather than an
 * exception. */
static PyObject *text(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* A finding's sentence, its duration marks written out as the text and
 * JSON reports write them (gs_dur_sentence). */
static PyObject *words(const char *marked)
{
	char *s = gs_dur_sentence_dup(marked, false);
	PyObject *v;

	if (!s)
		return PyErr_NoMemory();
	v = text(s);
	free(s);
	return v;
}

/* A new reference to None, for a column without a value. */
static PyObject *none(void)
{
	Py_RETURN_NONE;
}

/* Sets key to v and drops the reference; false (an exception set) when v
 * is NULL or the dict refuses it. */
static bool put(PyObject *row, const char *key, PyObject *v)
{
	int rc;

	if (!v)
		return false;
	rc = PyDict_SetItemString(row, key, v);
	Py_DECREF(v);
	return rc == 0;
}

static bool put_i64(PyObject *row, const char *key, int64_t v)
{
	return put(row, key, PyLong_FromLongLong((long long)v));
}

static bool put_u64(PyObject *row, const char *key, uint64_t v)
{
	return put(row, key, PyLong_FromUnsignedLongLong((unsigned long long)v));
}

static bool put_f64(PyObject *row, const char *key, double v)
{
	return put(row, key, isfinite(v) ? PyFloat_FromDouble(v) : none());
}

static bool put_str(PyObject *row, const char *key, const char *s)
{
	return put(row, key, text(s));
}

static bool put_bool(PyObject *row, const char *key, bool v)
{
	return put(row, key, PyBool_FromLong(v));
}

/* A rank's and device's columns, first in every per-device row. */
static PyObject *device_row(const struct gs_report *rank, const struct gs_report_device *d)
{
	struct gs_results_process p;
	PyObject *row = PyDict_New();

	if (!row)
		return NULL;
	gs_results_process(rank, &p);
	if (!put_u64(row, "rank", p.rank) || !put_u64(row, "device", d->device)) {
		Py_DECREF(row);
		return NULL;
	}
	return row;
}

/* Appends row (dropping the reference); false on failure. */
static bool append(PyObject *list, PyObject *row)
{
	int rc;

	if (!row)
		return false;
	rc = PyList_Append(list, row);
	Py_DECREF(row);
	return rc == 0;
}

/* Ends a row: appended to list when every column went in (ok), dropped
 * either way; false when it was not appended (an exception set). */
static bool row_done(PyObject *list, PyObject *row, bool ok)
{
	if (!ok) {
		Py_XDECREF(row);
		return false;
	}
	return append(list, row);
}

/* ---- the analysis ---- */

struct analysis {
	struct gs_job *job;
	struct gs_report *report;
};

static void analysis_free(PyObject *capsule)
{
	struct analysis *a = PyCapsule_GetPointer(capsule, ANALYSIS_CAPSULE);

	if (!a)
		return;
	gs_report_destroy(a->report);
	gs_job_destroy(a->job);
	free(a);
}

static void job_free(PyObject *capsule)
{
	struct gs_job *j = PyCapsule_GetPointer(capsule, JOB_CAPSULE);

	gs_job_destroy(j);
}

/* The paths of a sequence of str (the wrapper passes os.fspath'd names),
 * encoded for the file system; freed with free_paths. */
static char **get_paths(PyObject *seq, size_t *n)
{
	Py_ssize_t len;
	char **paths;

	len = PySequence_Size(seq);
	if (len < 0)
		return NULL;
	if (len == 0) {
		PyErr_SetString(PyExc_ValueError, "no trace given");
		return NULL;
	}
	paths = calloc((size_t)len, sizeof(*paths));
	if (!paths)
		return (char **)PyErr_NoMemory();
	for (Py_ssize_t i = 0; i < len; i++) {
		PyObject *item = PySequence_GetItem(seq, i), *bytes = NULL;
		char *s;

		if (item && PyUnicode_Check(item))
			bytes = PyUnicode_EncodeFSDefault(item);
		else if (item)
			PyErr_SetString(PyExc_TypeError, "a trace path must be a str");
		Py_XDECREF(item);
		s = bytes ? PyBytes_AsString(bytes) : NULL;
		paths[i] = s ? strdup(s) : NULL;
		Py_XDECREF(bytes);
		if (!paths[i]) {
			if (s)
				PyErr_NoMemory();
			for (Py_ssize_t k = 0; k < i; k++)
				free(paths[k]);
			free(paths);
			return NULL;
		}
	}
	*n = (size_t)len;
	return paths;
}

static void free_paths(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

/* Load every input as the ranks of one job, as `gpuscope analyze` does;
 * GIL released. On failure, st and the index of the input that failed. */
static gs_status load_job(char **paths, size_t n, struct gs_job **job, const char **format,
			  size_t *failed)
{
	struct gs_load_options lo = {0};
	enum gs_input_format *fmts = calloc(n, sizeof(*fmts));
	gs_status st;

	*format = "";
	if (!fmts)
		return GS_ERR_NOMEM;
	gs_error_clear();
	st = gs_job_load((const char *const *)paths, n, &lo, job, fmts, failed);
	if (st == GS_OK) {
		for (size_t i = 1; i < n; i++)
			if (fmts[i] != fmts[0])
				*format = "mixed";
		if (!**format)
			*format = gs_input_format_name(fmts[0]);
	}
	free(fmts);
	return st;
}

/* _gpuscope.analyze(paths, step, step_marker, device, rank, rows, op_level) */
static PyObject *py_analyze(PyObject *self, PyObject *args, PyObject *kw)
{
	/* PyArg_ParseTupleAndKeywords wants char *, not string literals. */
	static char k_paths[] = "paths", k_step[] = "step", k_marker[] = "step_marker",
		    k_device[] = "device", k_rank[] = "rank", k_rows[] = "rows",
		    k_level[] = "op_level";
	static char *kwlist[] = {k_paths, k_step, k_marker, k_device,
				 k_rank,  k_rows, k_level,  NULL};
	PyObject *seq, *py_device = Py_None, *py_rank = Py_None, *py_rows = Py_None;
	const char *step = NULL, *marker = NULL, *level = NULL, *format = "";
	struct gs_report_options ro = {0};
	struct analysis *a;
	const char **names = NULL;
	char **paths;
	size_t n = 0, failed = 0;
	gs_status st;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|zzOOOz", kwlist, &seq, &step, &marker,
					 &py_device, &py_rank, &py_rows, &level))
		return NULL;
	if (step && gs_step_options_parse(step, &ro.steps) != GS_OK) {
		gs_error_clear();
		return PyErr_Format(PyExc_ValueError,
				    "step wants a step number, A:B, all or none, not '%s'", step);
	}
	if (marker) {
		if (!*marker)
			return PyErr_Format(PyExc_ValueError,
					    "step_marker wants a regular expression");
		ro.steps.marker = marker;
	}
	if (level && !strcmp(level, "module"))
		ro.op_level = GS_OP_LEVEL_MODULE;
	else if (level && strcmp(level, "operator") != 0)
		return PyErr_Format(PyExc_ValueError, "op_level wants operator or module, not '%s'",
				    level);
	if (py_device != Py_None) {
		unsigned long v = PyLong_AsUnsignedLong(py_device);

		if (PyErr_Occurred() || v > UINT32_MAX)
			return PyErr_Occurred() ?
				       NULL :
				       PyErr_Format(PyExc_ValueError, "device out of range");
		ro.has_device = true;
		ro.device = (uint32_t)v;
	}
	if (py_rank != Py_None) {
		unsigned long v = PyLong_AsUnsignedLong(py_rank);

		if (PyErr_Occurred() || v > UINT32_MAX)
			return PyErr_Occurred() ?
				       NULL :
				       PyErr_Format(PyExc_ValueError, "rank out of range");
		ro.has_rank = true;
		ro.rank = (uint32_t)v;
	}
	if (py_rows != Py_None) {
		unsigned long long v = PyLong_AsUnsignedLongLong(py_rows);

		if (PyErr_Occurred())
			return NULL;
		if (v == 0)
			return PyErr_Format(PyExc_ValueError, "rows wants a count from 1");
		ro.rows = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
	}

	paths = get_paths(seq, &n);
	if (!paths)
		return NULL;
	a = calloc(1, sizeof(*a));
	names = calloc(n, sizeof(*names));
	if (!a || !names) {
		free(a);
		free(names);
		free_paths(paths, n);
		return PyErr_NoMemory();
	}
	for (size_t i = 0; i < n; i++)
		names[i] = gs_input_name(paths[i]);

	Py_BEGIN_ALLOW_THREADS;
	st = load_job(paths, n, &a->job, &format, &failed);
	if (st == GS_OK) {
		ro.inputs = names;
		ro.n_inputs = n;
		ro.format = format;
		gs_error_clear();
		st = gs_report_build_job(a->job, &ro, &a->report);
		failed = n == 1 ? 0 : SIZE_MAX;
	}
	Py_END_ALLOW_THREADS;

	if (st != GS_OK) {
		PyObject *rv = raise_chain(st, failed < n ? names[failed] : NULL);

		gs_report_destroy(a->report);
		gs_job_destroy(a->job);
		free(a);
		free(names);
		free_paths(paths, n);
		return rv;
	}
	free(names);
	free_paths(paths, n);
	{
		PyObject *cap = PyCapsule_New(a, ANALYSIS_CAPSULE, analysis_free);

		if (!cap) {
			gs_report_destroy(a->report);
			gs_job_destroy(a->job);
			free(a);
		}
		return cap;
	}
}

static const struct gs_report *report_of(PyObject *cap)
{
	struct analysis *a = PyCapsule_GetPointer(cap, ANALYSIS_CAPSULE);

	return a ? a->report : NULL;
}

/* ---- the tables ---- */

typedef bool (*device_rows_fn)(PyObject *list, const struct gs_report *rank,
			       const struct gs_report_device *d);

static bool rows_devices(PyObject *list, const struct gs_report *rank,
			 const struct gs_report_device *d)
{
	struct gs_results_process p;
	PyObject *row = device_row(rank, d);

	gs_results_process(rank, &p);
	return row_done(
		list, row,
		row && put_str(row, "name", d->name) &&
			put(row, "host", *p.host ? text(p.host) : none()) &&
			put(row, "pid", p.pid >= 0 ? PyLong_FromLongLong(p.pid) : none()) &&
			put(row, "uuid", *d->uuid ? text(d->uuid) : none()) &&
			put_i64(row, "window_start_ns", d->b.window_start) &&
			put_i64(row, "window_end_ns", d->b.window_end) &&
			put_bool(row, "window_default", d->default_window) &&
			put_u64(row, "ops", d->ops) && put_i64(row, "actual_ns", d->actual_ns) &&
			put_i64(row, "dependency_bound_ns", d->dependency_bound_ns) &&
			put_i64(row, "ideal_ns", d->ideal_ns) &&
			put_f64(row, "efficiency",
				d->efficiency_kind == GS_REPORT_EFF_CYCLES ? NAN : d->efficiency) &&
			put_bool(row, "efficiency_bounded",
				 d->efficiency_kind == GS_REPORT_EFF_BOUNDED) &&
			put_i64(row, "gap_ns", d->actual_ns - d->ideal_ns));
}

static bool rows_breakdown(PyObject *list, const struct gs_report *rank,
			   const struct gs_report_device *d)
{
	const struct gs_breakdown *b = &d->b;
	PyObject *row = device_row(rank, d);

	(void)rank;
	return row_done(list, row,
			row && put_i64(row, "kernel_ns", b->total_ns[GS_CAT_KERNEL]) &&
				put_i64(row, "copy_ns", b->total_ns[GS_CAT_COPY]) &&
				put_i64(row, "sync_ns", b->total_ns[GS_CAT_SYNC]) &&
				put_i64(row, "idle_ns", b->total_ns[GS_CAT_IDLE]) &&
				put_i64(row, "total_ns", b->window_ns) &&
				put_str(row, "dominant", gs_category_name(b->dominant)) &&
				put_u64(row, "segments", b->n_segments) &&
				put_i64(row, "copy_total_ns", b->copy_total_ns) &&
				put_i64(row, "copy_hidden_ns", b->copy_hidden_ns) &&
				put_i64(row, "kernel_concurrency_ns", b->kernel_concurrency_ns) &&
				put_i64(row, "host_bound_ns", b->host_bound_ns) &&
				put_i64(row, "launch_latency_ns", b->launch_latency_ns) &&
				put_i64(row, "unattributed_ns", b->unattributed_ns));
}

static bool rows_findings(PyObject *list, const struct gs_report *rank,
			  const struct gs_report_device *d)
{
	for (size_t i = 0; i < d->n_findings; i++) {
		const struct gs_report_finding *f = &d->findings[i];
		PyObject *row = device_row(rank, d), *nums = PyDict_New();
		bool ok = row && nums;

		for (uint8_t k = 0; ok && k < f->data.n; k++)
			ok = put_f64(nums, f->data.num[k].key, f->data.num[k].value);
		if (ok) {
			ok = put_str(row, "kind", f->kind) && put_i64(row, "ns", f->ns) &&
			     put_str(row, "evidence", gs_evidence_name(f->data.evidence)) &&
			     put(row, "numbers", nums) && put(row, "text", words(f->text)) &&
			     put(row, "advice", words(f->advice)) &&
			     put(row, "advice_kind",
				 f->data.advice ? text(f->data.advice) : none());
			nums = NULL;
		}
		Py_XDECREF(nums);
		if (!row_done(list, row, ok))
			return false;
	}
	return true;
}

static bool rows_kernels(PyObject *list, const struct gs_report *rank,
			 const struct gs_report_device *d)
{
	const struct gs_trace *t = gs_results_trace(rank);

	for (size_t i = 0; i < d->n_kernels; i++) {
		const struct gs_report_kernel *k = &d->kernels[i];
		PyObject *row = device_row(rank, d);

		if (!row_done(list, row,
			      row && put_str(row, "name", gs_trace_string(t, k->name)) &&
				      put_u64(row, "count", k->count) &&
				      put_i64(row, "ns", k->ns) &&
				      put_i64(row, "mean_ns", k->mean_ns) &&
				      put_i64(row, "min_ns", k->min_ns) &&
				      put_i64(row, "median_ns", k->median_ns) &&
				      put_i64(row, "p95_ns", k->p95_ns) &&
				      put_i64(row, "max_ns", k->max_ns) &&
				      put_i64(row, "std_ns", k->std_ns) &&
				      put_str(row, "class", gs_kernel_class_name(k->cls))))
			return false;
	}
	return true;
}

static bool rows_streams(PyObject *list, const struct gs_report *rank,
			 const struct gs_report_device *d)
{
	for (size_t i = 0; i < d->n_streams; i++) {
		const struct gs_report_stream *s = &d->streams[i];
		PyObject *row = device_row(rank, d);

		if (!row_done(list, row,
			      row && put_u64(row, "stream", s->stream_id) &&
				      put_str(row, "kind", gs_stream_kind_name(s->kind)) &&
				      put_i64(row, "priority", s->priority) &&
				      put_u64(row, "ops", s->ops) &&
				      put_i64(row, "kernel_ns", s->kernel_ns) &&
				      put_i64(row, "copy_ns", s->copy_ns) &&
				      put_u64(row, "kernels", s->kernels) &&
				      put_u64(row, "copies", s->copies) &&
				      put_i64(row, "busy_ns", s->busy_ns) &&
				      put_i64(row, "pid", s->pid) &&
				      put_u64(row, "index", s->index)))
			return false;
	}
	return true;
}

static bool rows_gap(PyObject *list, const struct gs_report *rank, const struct gs_report_device *d)
{
	for (unsigned c = 0; d->gap.available && c < GS_GAP_CAUSE_COUNT; c++) {
		PyObject *row;

		if (!d->gap.ns[c])
			continue;
		row = device_row(rank, d);
		if (!row_done(list, row,
			      row && put_str(row, "cause", gs_gap_cause_name(c)) &&
				      put_i64(row, "ns", d->gap.ns[c]) &&
				      put_str(row, "evidence", gs_gap_cause_evidence(c))))
			return false;
	}
	return true;
}

static bool rows_steps(PyObject *list, const struct gs_report *rank,
		       const struct gs_report_device *d)
{
	const struct gs_steps *s = gs_results_steps(rank);
	const struct gs_trace *t = gs_results_trace(rank);

	for (size_t i = 0; d->step_stats && i < s->n; i++) {
		const struct gs_step *st = &s->steps[i];
		const struct gs_report_step_stat *x = &d->step_stats[i];
		PyObject *row = device_row(rank, d);
		bool ok;

		ok = row && put_u64(row, "step", st->number) &&
		     put_str(row, "name", gs_trace_string(t, st->name)) &&
		     put_bool(row, "analysed",
			      gs_results_window_from_steps(rank) && st->selected) &&
		     put_bool(row, "partial", st->partial) &&
		     put_i64(row, "host_start_ns", st->host_start_ns) &&
		     put_i64(row, "host_end_ns", st->host_end_ns) &&
		     put_i64(row, "gpu_start_ns", st->gpu_start_ns) &&
		     put_i64(row, "gpu_end_ns", st->gpu_end_ns) &&
		     put_bool(row, "gpu_drawn", st->gpu_drawn) &&
		     put_u64(row, "ops", x->has ? x->ops : 0) && put_bool(row, "figures", x->has);
		if (ok && x->has) {
			ok = put_i64(row, "time_ns", x->window_ns);
			for (unsigned c = 0; ok && c < GS_CAT_COUNT; c++) {
				char key[32];

				snprintf(key, sizeof(key), "%s_ns", gs_category_name(c));
				ok = put_i64(row, key, x->total_ns[c]);
			}
			ok = ok && put_i64(row, "actual_ns", x->actual_ns) &&
			     put_i64(row, "ideal_ns", x->ideal_ns) &&
			     put_f64(row, "efficiency", x->efficiency) &&
			     put(row, "gap_cause",
				 x->gap_cause < GS_GAP_CAUSE_COUNT ?
					 text(gs_gap_cause_name(x->gap_cause)) :
					 none()) &&
			     put_i64(row, "gap_cause_ns",
				     x->gap_cause < GS_GAP_CAUSE_COUNT ? x->gap_cause_ns : 0);
		}
		if (!row_done(list, row, ok))
			return false;
	}
	return true;
}

static bool rows_operators(PyObject *list, const struct gs_report *rank,
			   const struct gs_report_device *d)
{
	const struct gs_operators *m = &d->operators;
	const struct gs_trace *t = gs_results_trace(rank);

	for (size_t i = 0; i < m->n_rows; i++) {
		const struct gs_operator *p = &m->rows[i];
		PyObject *row = device_row(rank, d);

		if (!row_done(list, row,
			      row &&
				      put_str(row, "name",
					      p->outside ? GS_OPERATOR_OUTSIDE_NAME :
							   gs_trace_string(t, p->name)) &&
				      put_str(row, "source",
					      p->outside ? "none" :
							   gs_range_kind_name(p->source)) &&
				      put_bool(row, "outside", p->outside) &&
				      put_u64(row, "calls", p->calls) &&
				      put_u64(row, "total_calls", p->total_calls) &&
				      put_u64(row, "kernels", p->kernels) &&
				      put_u64(row, "copies", p->copies) &&
				      put_i64(row, "gpu_ns", p->ns) &&
				      put_i64(row, "kernel_ns", p->kernel_ns) &&
				      put_i64(row, "copy_ns", p->copy_ns)))
			return false;
	}
	return true;
}

static bool rows_critical_path(PyObject *list, const struct gs_report *rank,
			       const struct gs_report_device *d)
{
	const struct gs_trace *t = gs_results_trace(rank);
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);

	for (size_t i = 0; i < d->n_critical; i++) {
		uint32_t op = d->critical[i].op;
		PyObject *row = device_row(rank, d);

		if (!row_done(list, row,
			      row && put_u64(row, "op", gs_report_op_id(t, op)) &&
				      put_u64(row, "op_index", op) &&
				      put_str(row, "name",
					      op < n_ops ? gs_trace_string(t, ops[op].name) : "") &&
				      put_u64(row, "stream", gs_report_op_stream(t, op)) &&
				      put_i64(row, "ns", d->critical[i].ns) &&
				      put_str(row, "kind",
					      op < n_ops ? gs_op_kind_name(ops[op].kind) : "") &&
				      put_i64(row, "start_ns", op < n_ops ? ops[op].start_ns : 0)))
			return false;
	}
	return true;
}

/* The waits of a rank: not per device, but each names its device. */
static bool rows_waits(PyObject *list, const struct gs_report *rank)
{
	const struct gs_trace *t = gs_results_trace(rank);
	struct gs_results_process p;
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);

	gs_results_process(rank, &p);
	for (size_t i = 0; i < gs_results_wait_rows(rank); i++) {
		const struct gs_wait *x = gs_results_wait(rank, i);
		uint32_t c = x->consumer, q = x->producer;
		PyObject *row = PyDict_New();

		if (!row_done(list, row,
			      row && put_u64(row, "rank", p.rank) &&
				      put_u64(row, "device", gs_report_op_device(t, c)) &&
				      put_str(row, "kind", gs_edge_kind_name(x->kind)) &&
				      put_u64(row, "consumer", gs_report_op_id(t, c)) &&
				      put_u64(row, "consumer_index", c) &&
				      put_str(row, "consumer_name",
					      c < n_ops ? gs_trace_string(t, ops[c].name) : "") &&
				      put_u64(row, "consumer_stream", gs_report_op_stream(t, c)) &&
				      put_u64(row, "producer", gs_report_op_id(t, q)) &&
				      put_u64(row, "producer_index", q) &&
				      put_str(row, "producer_name",
					      q < n_ops ? gs_trace_string(t, ops[q].name) : "") &&
				      put_u64(row, "producer_stream", gs_report_op_stream(t, q)) &&
				      put_u64(row, "event", x->event) &&
				      put_i64(row, "wait_ns", x->wait_ns) &&
				      put_i64(row, "consumer_start_ns",
					      c < n_ops ? ops[c].start_ns : 0) &&
				      put_i64(row, "producer_end_ns",
					      q < n_ops ? ops[q].end_ns : 0)))
			return false;
	}
	return true;
}

static bool rows_ranks(PyObject *list, const struct gs_report *rank)
{
	struct gs_results_process p;
	size_t n_dev;
	PyObject *row = PyDict_New();

	gs_results_process(rank, &p);
	gs_results_devices(rank, &n_dev);
	return row_done(list, row,
			row && put_u64(row, "rank", p.rank) &&
				put(row, "host", *p.host ? text(p.host) : none()) &&
				put(row, "pid", p.pid >= 0 ? PyLong_FromLongLong(p.pid) : none()) &&
				put_str(row, "input", p.input) && put_u64(row, "devices", n_dev));
}

/* ---- the job's tables (a report of two or more ranks) ---- */

static PyObject *none_or_text(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return text(s);
}

static bool rows_communicators(PyObject *list, const struct gs_report *job)
{
	struct gs_results_communicator c;

	for (size_t i = 0; gs_results_communicator(job, i, &c); i++) {
		PyObject *row = PyDict_New();

		if (!row_done(list, row,
			      row && put_u64(row, "id", c.id) && put_str(row, "name", c.name) &&
				      put_str(row, "key", c.key) &&
				      put(row, "group", none_or_text(c.group)) &&
				      put(row, "kind", none_or_text(c.kind)) &&
				      put(row, "group_size",
					  c.group_size ? PyLong_FromUnsignedLong(c.group_size) :
							 none()) &&
				      put_u64(row, "clock_group", c.clock_group) &&
				      put_str(row, "matched_by", c.matched_by) &&
				      put_u64(row, "ranks", c.ranks) &&
				      put_u64(row, "collectives", c.collectives) &&
				      put_u64(row, "matched", c.matched) &&
				      put_u64(row, "no_overlap", c.no_overlap) &&
				      put_u64(row, "within_clock_error", c.within_clock_error) &&
				      put_i64(row, "skew_mean_ns", c.skew_mean_ns) &&
				      put_i64(row, "skew_max_ns", c.skew_max_ns) &&
				      put_i64(row, "wait_ns", c.wait_ns) &&
				      put_i64(row, "transfer_mean_ns", c.transfer_mean_ns) &&
				      put_f64(row, "busbw_mean_gbps", c.busbw_mean_gbps)))
			return false;
	}
	return true;
}

static bool rows_collectives(PyObject *list, const struct gs_report *job)
{
	struct gs_results_collective x;

	for (size_t i = 0; gs_results_collective(job, i, &x); i++) {
		PyObject *row = PyDict_New();

		if (!row_done(list, row,
			      row && put_u64(row, "communicator", x.communicator) &&
				      put_u64(row, "index", x.index) &&
				      put_str(row, "name", x.name) &&
				      put_u64(row, "ranks", x.ranks) &&
				      put_i64(row, "skew_ns", x.skew_ns) &&
				      put(row, "last_rank",
					  x.compared ? PyLong_FromUnsignedLong(x.last_rank) :
						       none()) &&
				      put_bool(row, "within_clock_error", x.within_clock_error) &&
				      put_i64(row, "clock_error_ns", x.clock_error_ns) &&
				      put_i64(row, "transfer_ns", x.transfer_ns) &&
				      put(row, "bytes",
					  x.bytes >= 0 ? PyLong_FromLongLong(x.bytes) : none()) &&
				      put_f64(row, "algbw_gbps", x.algbw_gbps) &&
				      put_f64(row, "busbw_gbps", x.busbw_gbps)))
			return false;
	}
	return true;
}

static bool rows_job_steps(PyObject *list, const struct gs_report *job)
{
	struct gs_results_job_step x;

	for (size_t i = 0; gs_results_job_step(job, i, &x); i++) {
		PyObject *row = PyDict_New();
		PyObject *none = Py_None;
		bool ok;

		ok = row && put_u64(row, "number", x.number) && put_u64(row, "ranks", x.ranks) &&
		     put_bool(row, "analysed", x.analysed) && put_bool(row, "partial", x.partial) &&
		     put_i64(row, "min_ns", x.min_ns) && put_u64(row, "min_rank", x.min_rank) &&
		     put_i64(row, "median_ns", x.median_ns) &&
		     put_u64(row, "median_rank", x.median_rank) &&
		     put_i64(row, "max_ns", x.max_ns) && put_u64(row, "max_rank", x.max_rank) &&
		     put_bool(row, "slow", x.slow);
		if (ok && x.span_known)
			ok = put_i64(row, "span_ns", x.span_ns) &&
			     put_i64(row, "span_error_ns", x.span_error_ns) &&
			     put_u64(row, "last_rank", x.last_rank) &&
			     put_i64(row, "last_after_median_ns", x.last_after_median_ns);
		else if (ok)
			ok = put(row, "span_ns", (Py_INCREF(none), none)) &&
			     put(row, "span_error_ns", (Py_INCREF(none), none)) &&
			     put(row, "last_rank", (Py_INCREF(none), none)) &&
			     put(row, "last_after_median_ns", (Py_INCREF(none), none));
		ok = ok && put(row, "slowest_gap_cause", none_or_text(x.slowest_gap_cause)) &&
		     put(row, "slowest_gap_cause_ns",
			 x.slowest_gap_cause ? PyLong_FromLongLong(x.slowest_gap_cause_ns) :
					       (Py_INCREF(none), none)) &&
		     put_f64(row, "efficiency_min", x.efficiency_min) &&
		     put(row, "efficiency_min_rank",
			 isfinite(x.efficiency_min) ?
				 PyLong_FromUnsignedLong(x.efficiency_min_rank) :
				 (Py_INCREF(none), none));
		if (!row_done(list, row, ok))
			return false;
	}
	return true;
}

static const struct {
	const char *name;
	device_rows_fn per_device;
	bool (*per_rank)(PyObject *list, const struct gs_report *rank);
	bool (*per_job)(PyObject *list, const struct gs_report *job);
} tables[] = {
	{"devices", rows_devices, NULL, NULL},
	{"breakdown", rows_breakdown, NULL, NULL},
	{"findings", rows_findings, NULL, NULL},
	{"kernels", rows_kernels, NULL, NULL},
	{"streams", rows_streams, NULL, NULL},
	{"gap", rows_gap, NULL, NULL},
	{"steps", rows_steps, NULL, NULL},
	{"operators", rows_operators, NULL, NULL},
	{"critical_path", rows_critical_path, NULL, NULL},
	{"waits", NULL, rows_waits, NULL},
	{"ranks", NULL, rows_ranks, NULL},
	{"communicators", NULL, NULL, rows_communicators},
	{"collectives", NULL, NULL, rows_collectives},
	{"job_steps", NULL, NULL, rows_job_steps},
};

/* _gpuscope.table(analysis, name): the rows of one table, every rank's. */
static PyObject *py_table(PyObject *self, PyObject *args)
{
	PyObject *cap, *list;
	const struct gs_report *r;
	const char *name;
	size_t which = sizeof(tables) / sizeof(tables[0]);

	(void)self;
	if (!PyArg_ParseTuple(args, "Os", &cap, &name))
		return NULL;
	r = report_of(cap);
	if (!r)
		return NULL;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (!strcmp(tables[i].name, name))
			which = i;
	if (which == sizeof(tables) / sizeof(tables[0]))
		return PyErr_Format(PyExc_ValueError, "no table '%s'", name);
	list = PyList_New(0);
	if (!list)
		return NULL;
	if (tables[which].per_job) {
		if (!tables[which].per_job(list, r)) {
			Py_DECREF(list);
			return NULL;
		}
		return list;
	}
	for (size_t k = 0; k < gs_results_rank_count(r); k++) {
		const struct gs_report *rank = gs_results_rank(r, k);
		size_t n_dev;
		const struct gs_report_device *dev = gs_results_devices(rank, &n_dev);
		bool ok = true;

		if (tables[which].per_rank)
			ok = tables[which].per_rank(list, rank);
		for (size_t d = 0; ok && tables[which].per_device && d < n_dev; d++)
			ok = tables[which].per_device(list, rank, &dev[d]);
		if (!ok) {
			Py_DECREF(list);
			return NULL;
		}
	}
	return list;
}

/* ---- a trace's ops ---- */

/* _gpuscope.load(paths): the inputs as one job, GIL released. */
static PyObject *py_load(PyObject *self, PyObject *args)
{
	PyObject *seq, *cap;
	struct gs_job *job = NULL;
	const char *format;
	char **paths;
	size_t n = 0, failed = 0;
	gs_status st;

	(void)self;
	if (!PyArg_ParseTuple(args, "O", &seq))
		return NULL;
	paths = get_paths(seq, &n);
	if (!paths)
		return NULL;
	Py_BEGIN_ALLOW_THREADS;
	st = load_job(paths, n, &job, &format, &failed);
	Py_END_ALLOW_THREADS;
	if (st != GS_OK) {
		PyObject *rv = raise_chain(st, failed < n ? gs_input_name(paths[failed]) : NULL);

		free_paths(paths, n);
		return rv;
	}
	free_paths(paths, n);
	cap = PyCapsule_New(job, JOB_CAPSULE, job_free);
	if (!cap)
		gs_job_destroy(job);
	return cap;
}

/* Column `key` of n values, appended to `cols`; false on failure. */
static bool add_column(PyObject *cols, const char *key, PyObject *list)
{
	return put(cols, key, list);
}

/* _gpuscope.ops(job): every op of every rank, as columns (dict of lists). */
static PyObject *py_ops(PyObject *self, PyObject *args)
{
	static const char *const names[] = {"rank",        "device",   "stream",   "kind",
					    "name",        "start_ns", "end_ns",   "dur_ns",
					    "correlation", "bytes",    "copy_kind"};
	enum {
		N_COLS = sizeof(names) / sizeof(names[0])
	};
	PyObject *cap, *cols, *col[N_COLS] = {0};
	struct gs_job *job;
	size_t total = 0, at = 0;
	bool ok = true;

	(void)self;
	if (!PyArg_ParseTuple(args, "O", &cap))
		return NULL;
	job = PyCapsule_GetPointer(cap, JOB_CAPSULE);
	if (!job)
		return NULL;
	for (size_t r = 0; r < job->n_ranks; r++) {
		size_t n;

		gs_trace_ops(job->ranks[r].trace, &n);
		total += n;
	}
	cols = PyDict_New();
	for (size_t c = 0; cols && ok && c < N_COLS; c++) {
		col[c] = PyList_New((Py_ssize_t)total);
		ok = col[c] != NULL;
	}
	for (size_t r = 0; ok && cols && r < job->n_ranks; r++) {
		const struct gs_trace *t = job->ranks[r].trace;
		size_t n, n_streams;
		const struct gs_op *ops = gs_trace_ops(t, &n);
		const struct gs_stream *streams = gs_trace_streams(t, &n_streams);

		for (size_t i = 0; ok && i < n; i++, at++) {
			const struct gs_op *op = &ops[i];
			const struct gs_stream *s = op->stream < n_streams ? &streams[op->stream] :
									     NULL;
			PyObject *v[N_COLS] = {
				PyLong_FromUnsignedLong(job->ranks[r].rank),
				PyLong_FromUnsignedLong(s ? s->device : UINT32_MAX),
				PyLong_FromUnsignedLongLong(s ? s->stream_id : 0),
				text(gs_op_kind_name(op->kind)),
				text(gs_trace_string(t, op->name)),
				PyLong_FromLongLong(op->start_ns),
				PyLong_FromLongLong(op->end_ns),
				PyLong_FromLongLong(op->end_ns - op->start_ns),
				PyLong_FromUnsignedLongLong(op->correlation),
				PyLong_FromUnsignedLongLong(op->bytes),
				text(gs_copy_kind_name(op->copy_kind)),
			};

			for (size_t c = 0; c < N_COLS; c++) {
				if (!v[c]) {
					ok = false;
					continue;
				}
				PyList_SetItem(col[c], (Py_ssize_t)at, v[c]); /* steals */
			}
		}
	}
	for (size_t c = 0; c < N_COLS; c++) {
		if (ok && cols)
			ok = add_column(cols, names[c], col[c]);
		else
			Py_XDECREF(col[c]);
		col[c] = NULL;
	}
	if (!ok || !cols) {
		Py_XDECREF(cols);
		return NULL;
	}
	return cols;
}

/* ---- the module ---- */

static PyMethodDef methods[] = {
	{"analyze", (PyCFunction)(void (*)(void))py_analyze, METH_VARARGS | METH_KEYWORDS,
	 "analyze(paths, step=None, step_marker=None, device=None, rank=None, rows=None, "
	 "op_level=None): load the traces as the ranks of one job and analyse them."},
	{"table", py_table, METH_VARARGS, "table(analysis, name): the rows of one table."},
	{"load", py_load, METH_VARARGS, "load(paths): the traces as the ranks of one job."},
	{"ops", py_ops, METH_VARARGS, "ops(job): every op, as columns."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	"_gpuscope",
	"The C core of the gpuscope package.",
	-1,
	methods,
	NULL,
	NULL,
	NULL,
	NULL,
};

PyMODINIT_FUNC PyInit__gpuscope(void);

PyMODINIT_FUNC PyInit__gpuscope(void)
{
	PyObject *m = PyModule_Create(&module);

	if (!m)
		return NULL;
	gs_py_error = PyErr_NewException("gpuscope.Error", PyExc_Exception, NULL);
	if (!gs_py_error || PyModule_AddObject(m, "Error", gs_py_error) < 0) {
		Py_XDECREF(gs_py_error);
		Py_DECREF(m);
		return NULL;
	}
	Py_INCREF(gs_py_error); /* PyModule_AddObject stole one */
	return m;
}
