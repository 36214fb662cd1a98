// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim: command line of the sroce deterministic simulator.
 *
 *   sim --seed N --runs K [--mix] [--loss P --dup P --reorder P
 *       --corrupt P --latency-ns N --jitter-ns N --reorder-ns N
 *       --bw-ps N --ctx-ns N [--ctx-unordered] --adversary RATE
 *       --budget B --max-ops N --timeout T] [--verbose]
 *   sim --bench
 *   sim --fuzz-input FILE      replay a fuzz_sim input
 *
 * Runs seeds N .. N+K-1, one TAP line each ("ok 3 - seed 103 ..."), then
 * a summary; exit status 1 if any run failed.  --mix draws a profile per
 * seed (lossless, lossy, very lossy, adversary) from the seed itself, so
 * "sim --seed S --runs 1 --mix" replays run S of a batch.  Every run is
 * preceded by the same workload on a lossless wire: its time is the
 * reference the faulty run is compared with, and bounds it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "sim.h"

#define NS_PER_S	1000000000ULL

struct opts {
	struct sim_cfg cfg;
	u64	seed;
	u32	runs;
	bool	mix;
	bool	bench;
	bool	no_ref;
	bool	no_fork;
	const char *fuzz_input;
};

/* What the abort path prints: the run in progress */
static u64 cur_seed;
static u32 cur_n;
static char cur_replay[512];

static void on_abort(int sig)
{
	printf("not ok %u - seed %llu: engine aborted (signal %d)\n", cur_n,
	       (unsigned long long)cur_seed, sig);
	printf("# replay: %s\n", cur_replay);
	fflush(stdout);
	sim_dump_trace();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The sanitizers call this before they exit on an error */
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static void on_sanitizer_death(void)
{
	on_abort(0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: sim [--seed N] [--runs K] [--mix] [--loss P] [--dup P]\n"
		"           [--reorder P] [--corrupt P] [--latency-ns N]\n"
		"           [--jitter-ns N] [--reorder-ns N] [--bw-ps N]\n"
		"           [--ctx-ns N] [--ctx-unordered]\n"
		"           [--adversary RATE] [--budget BYTES] [--max-ops N]\n"
		"           [--timeout T]\n"
		"           [--no-ref] [--no-fork] [--verbose [--verbose]]\n"
		"       sim --bench\n"
		"       sim --fuzz-input FILE\n");
	exit(2);
}

static bool parse_value(struct opts *o, const char *a, const char *v)
{
	struct sim_wire_cfg *wc = &o->cfg.wire;

	if (!strcmp(a, "--seed"))
		o->seed = strtoull(v, NULL, 0);
	else if (!strcmp(a, "--runs"))
		o->runs = (u32)strtoul(v, NULL, 0);
	else if (!strcmp(a, "--loss"))
		wc->loss = atof(v);
	else if (!strcmp(a, "--dup"))
		wc->dup = atof(v);
	else if (!strcmp(a, "--reorder"))
		wc->reorder = atof(v);
	else if (!strcmp(a, "--corrupt"))
		wc->corrupt = atof(v);
	else if (!strcmp(a, "--latency-ns"))
		wc->latency_ns = strtoull(v, NULL, 0);
	else if (!strcmp(a, "--jitter-ns"))
		wc->jitter_ns = strtoull(v, NULL, 0);
	else if (!strcmp(a, "--reorder-ns"))
		wc->reorder_ns = strtoull(v, NULL, 0);
	else if (!strcmp(a, "--ctx-ns"))
		wc->ctx_ns = strtoull(v, NULL, 0);
	else if (!strcmp(a, "--bw-ps"))
		wc->ps_per_byte = (u32)strtoul(v, NULL, 0);
	else if (!strcmp(a, "--adversary"))
		o->cfg.adversary = atof(v);
	else if (!strcmp(a, "--budget"))
		o->cfg.budget = strtoull(v, NULL, 0);
	else if (!strcmp(a, "--max-ops"))
		o->cfg.max_ops = (u32)strtoul(v, NULL, 0);
	else if (!strcmp(a, "--timeout"))
		o->cfg.timeout = (u8)strtoul(v, NULL, 0);
	else if (!strcmp(a, "--fuzz-input"))
		o->fuzz_input = v;
	else
		return false;
	return true;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	struct sim_wire_cfg *wc = &o->cfg.wire;
	int i;

	memset(o, 0, sizeof(*o));
	o->runs = 1;
	wc->latency_ns = 5000;
	wc->reorder_ns = 50000;
	wc->ps_per_byte = 800;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--mix"))
			o->mix = true;
		else if (!strcmp(a, "--bench"))
			o->bench = true;
		else if (!strcmp(a, "--no-ref"))
			o->no_ref = true;
		else if (!strcmp(a, "--no-fork"))
			o->no_fork = true;
		else if (!strcmp(a, "--ctx-unordered"))
			o->cfg.wire.ctx_unordered = true;
		else if (!strcmp(a, "--verbose") || !strcmp(a, "-v"))
			o->cfg.verbose++;
		else if (v && parse_value(o, a, v))
			i++;
		else
			usage();
	}
}

/*
 * Half the lossy seeds get a slow receiver, some with stalls, drawn from
 * a stream of their own so that the rest of each seed's run is kept.
 */
static void slow_receiver(u64 seed, struct sim_wire_cfg *wc)
{
	struct sim_rng r;

	rng_seed(&r, seed, 8);
	if (rng_below(&r, 2))
		return;
	wc->rx_ns = rng_range(&r, 1000, 200000);
	wc->rx_queue = (u32)rng_range(&r, 4, 128);
	if (rng_below(&r, 2)) {
		wc->stall_ns = rng_range(&r, 100000, 5000000);
		wc->stall_every_ns = wc->stall_ns * rng_range(&r, 2, 20);
	}
}

/*
 * Three seeds in four send from late contexts, up to 20 us (a stream of
 * their own, as above): on a perfect wire too, where nothing may be
 * resent for it (sim_check.c).
 */
static void contexts(u64 seed, struct sim_wire_cfg *wc)
{
	struct sim_rng r;

	rng_seed(&r, seed, 9);
	if (rng_below(&r, 4))
		wc->ctx_ns = rng_range(&r, 100, 20000);
}

/* --mix: a profile per seed, drawn from the seed */
static const char *mix_profile(u64 seed, struct sim_cfg *cfg)
{
	struct sim_wire_cfg *wc = &cfg->wire;
	static const u32 bw[] = { 80, 800, 8000 };
	struct sim_rng r;

	rng_seed(&r, seed, 7);
	if (!cfg->budget)	/* a batch: keep each run short */
		cfg->budget = 384 * 1024;
	memset(wc, 0, sizeof(*wc));
	cfg->adversary = 0;
	wc->latency_ns = rng_range(&r, 500, 20000);
	wc->jitter_ns = rng_below(&r, 2000);
	wc->reorder_ns = rng_range(&r, 1000, 100000);
	wc->ps_per_byte = bw[rng_below(&r, 3)];
	contexts(seed, wc);
	switch (seed % 4) {
	case 0:
		/*
		 * A perfect wire: jitter would reorder, and a responder
		 * drops what comes ahead of its PSN, which retry_cnt 0
		 * cannot recover from (seeds 1260, 1372).
		 */
		wc->jitter_ns = 0;
		return "lossless";
	case 1:
		wc->loss = (double)rng_below(&r, 30) / 1000;
		wc->dup = (double)rng_below(&r, 20) / 1000;
		wc->reorder = (double)rng_below(&r, 100) / 1000;
		wc->corrupt = (double)rng_below(&r, 10) / 1000;
		slow_receiver(seed, wc);
		return "lossy";
	case 2:
		wc->loss = (double)rng_range(&r, 30, 100) / 1000;
		wc->dup = (double)rng_below(&r, 50) / 1000;
		wc->reorder = (double)rng_below(&r, 200) / 1000;
		wc->corrupt = (double)rng_below(&r, 20) / 1000;
		wc->jitter_ns = rng_below(&r, 50000);
		slow_receiver(seed, wc);
		return "very-lossy";
	default:
		wc->loss = (double)rng_below(&r, 20) / 1000;
		wc->reorder = (double)rng_below(&r, 50) / 1000;
		cfg->adversary = (double)rng_range(&r, 5, 50) / 1000;
		return "adversary";
	}
}

static bool cfg_is_clean(const struct sim_cfg *c)
{
	const struct sim_wire_cfg *wc = &c->wire;

	return !wc->loss && !wc->dup && !wc->reorder && !wc->corrupt &&
	       !wc->jitter_ns && !c->adversary && !c->script;
}

static void replay_line(const struct opts *o, u64 seed)
{
	const struct sim_wire_cfg *wc = &o->cfg.wire;
	int n;

	n = snprintf(cur_replay, sizeof(cur_replay),
		     "build/host/sim --seed %llu --runs 1 --verbose",
		     (unsigned long long)seed);
	if (o->mix)
		snprintf(cur_replay + n, sizeof(cur_replay) - (size_t)n,
			 " --mix");
	else
		snprintf(cur_replay + n, sizeof(cur_replay) - (size_t)n,
			 " --loss %g --dup %g --reorder %g --corrupt %g --latency-ns %llu --jitter-ns %llu --reorder-ns %llu --bw-ps %u --ctx-ns %llu%s --adversary %g --budget %llu --max-ops %u --timeout %u",
			 wc->loss, wc->dup, wc->reorder, wc->corrupt,
			 (unsigned long long)wc->latency_ns,
			 (unsigned long long)wc->jitter_ns,
			 (unsigned long long)wc->reorder_ns, wc->ps_per_byte,
			 (unsigned long long)wc->ctx_ns,
			 wc->ctx_unordered ? " --ctx-unordered" : "",
			 o->cfg.adversary, (unsigned long long)o->cfg.budget,
			 o->cfg.max_ops, o->cfg.timeout);
}

struct tally {
	u32	done;
	u32	killed;
	u32	failed;
	u64	sim_ns;
	u64	bytes;
	u64	cnt[SC_NR];
};

static void print_result(u32 n, u64 seed, const char *prof,
			 const struct sim_result *res,
			 const struct sim_result *ref)
{
	double t = (double)res->finish_ns / 1e6;
	double mbs = res->finish_ns ?
		     (double)res->bytes * 1e3 / (double)res->finish_ns : 0;

	printf("%s %u - seed %llu %s: %.3f ms", res->outcome == SIM_FAILED ?
	       "not ok" : "ok", n, (unsigned long long)seed, prof, t);
	if (ref && ref->outcome == SIM_DONE && ref->finish_ns)
		printf(" (lossless %.3f ms, x%.2f)",
		       (double)ref->finish_ns / 1e6,
		       (double)res->finish_ns / (double)ref->finish_ns);
	printf(", %llu ops %.2f MB, %.1f MB/s, retx %llu, timeouts %llu",
	       (unsigned long long)res->ops, (double)res->bytes / 1e6, mbs,
	       (unsigned long long)res->cnt[SC_RETRANSMITS],
	       (unsigned long long)res->cnt[SC_TIMEOUTS]);
	if (res->cnt[SC_FORGED])
		printf(", forged %llu", (unsigned long long)res->cnt[SC_FORGED]);
	if (res->outcome == SIM_KILLED)
		printf(", killed (%s)", res->why);
	printf("\n");
	if (res->outcome == SIM_FAILED) {
		printf("# %s\n# params: %s\n# failed: %s\n", prof, res->desc,
		       res->why);
		printf("# replay: %s\n", cur_replay);
	}
	fflush(stdout);
}

static void tally_add(struct tally *t, const struct sim_result *res)
{
	int i;

	if (res->outcome == SIM_DONE)
		t->done++;
	else if (res->outcome == SIM_KILLED)
		t->killed++;
	else
		t->failed++;
	t->sim_ns += res->finish_ns;
	t->bytes += res->bytes;
	for (i = 0; i < SC_NR; i++)
		t->cnt[i] += res->cnt[i];
}

static void tally_merge(struct tally *t, const struct tally *c)
{
	int i;

	t->done += c->done;
	t->killed += c->killed;
	t->failed += c->failed;
	t->sim_ns += c->sim_ns;
	t->bytes += c->bytes;
	for (i = 0; i < SC_NR; i++)
		t->cnt[i] += c->cnt[i];
}

/* The lossless reference bounds the faulty run in time and events */
static void bound_from_ref(struct sim_cfg *cfg, const struct sim_result *ref)
{
	if (ref && ref->outcome == SIM_DONE) {
		cfg->time_limit_ns = 20 * ref->finish_ns + 300 * NS_PER_S;
		cfg->event_limit = 100 * ref->events + 2000000;
	} else {
		cfg->time_limit_ns = 600 * NS_PER_S;
		cfg->event_limit = 20000000;
	}
}

static enum sim_outcome run_seed(const struct opts *o, u32 n, u64 seed,
				 struct tally *t)
{
	static struct sim_result res, ref;
	struct sim_cfg cfg = o->cfg, rcfg;
	const char *prof = "custom";
	bool have_ref = false;

	cfg.seed = seed;
	if (o->mix)
		prof = mix_profile(seed, &cfg);
	cur_seed = seed;
	cur_n = n;
	replay_line(o, seed);
	if (!o->no_ref && !cfg_is_clean(&cfg)) {
		rcfg = cfg;
		memset(&rcfg.wire, 0, sizeof(rcfg.wire));
		rcfg.wire.latency_ns = cfg.wire.latency_ns;
		rcfg.wire.ps_per_byte = cfg.wire.ps_per_byte;
		rcfg.wire.ctx_ns = cfg.wire.ctx_ns;
		rcfg.adversary = 0;
		rcfg.verbose = 0;
		bound_from_ref(&rcfg, NULL);
		if (sim_run(&rcfg, &ref) == SIM_FAILED) {
			printf("# lossless reference of seed %llu failed\n",
			       (unsigned long long)seed);
			print_result(n, seed, prof, &ref, NULL);
			tally_add(t, &ref);
			return SIM_FAILED;
		}
		have_ref = true;
	}
	bound_from_ref(&cfg, have_ref ? &ref : NULL);
	sim_run(&cfg, &res);
	print_result(n, seed, prof, &res, have_ref ? &ref : &res);
	tally_add(t, &res);
	return res.outcome;
}

static void print_counters(const struct tally *t)
{
	int i, col = 0;

	printf("# counters:");
	for (i = 0; i < SC_NR; i++) {
		if (!t->cnt[i])
			continue;
		printf("%s %s %llu", col++ % 6 ? "," : "\n#  ",
		       sim_counter_name((enum sim_counter)i),
		       (unsigned long long)t->cnt[i]);
	}
	printf("\n");
}

/*
 * One run in a child process, so that an engine abort (or a sanitizer
 * report) fails that run only; the child sends its tally back.
 */
static void run_seed_forked(const struct opts *o, u32 n, u64 seed,
			    struct tally *t)
{
	struct tally ct;
	int fd[2], status = 0;
	pid_t pid;

	fflush(stdout);
	if (pipe(fd) || (pid = fork()) < 0) {
		perror("sim: fork");
		exit(2);
	}
	if (!pid) {
		close(fd[0]);
		memset(&ct, 0, sizeof(ct));
		run_seed(o, n, seed, &ct);
		fflush(stdout);
		if (write(fd[1], &ct, sizeof(ct)) != (ssize_t)sizeof(ct))
			_exit(3);
		_exit(0);
	}
	close(fd[1]);
	memset(&ct, 0, sizeof(ct));
	if (read(fd[0], &ct, sizeof(ct)) != (ssize_t)sizeof(ct)) {
		memset(&ct, 0, sizeof(ct));
		ct.failed = 1;
	}
	close(fd[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		memset(&ct, 0, sizeof(ct));
		ct.failed = 1;
	}
	tally_merge(t, &ct);
}

static int run_batch(const struct opts *o)
{
	struct tally t;
	double t0 = now_s();
	u32 i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < o->runs; i++) {
		if (o->no_fork || o->runs == 1)
			run_seed(o, i + 1, o->seed + i, &t);
		else
			run_seed_forked(o, i + 1, o->seed + i, &t);
	}
	printf("1..%u\n", o->runs);
	printf("# %u runs: %u done, %u killed (legitimate QP error), %u failed\n",
	       o->runs, t.done, t.killed, t.failed);
	printf("# simulated %.3f s for %.1f MB; wall %.1f s\n",
	       (double)t.sim_ns / 1e9, (double)t.bytes / 1e6, now_s() - t0);
	print_counters(&t);
	return t.failed ? 1 : 0;
}

/* ---------------------------------------------------------------- */
/* Bench                                                               */

struct bench_cond {
	const char *name;
	double	loss;
	u64	latency_ns;
	u64	jitter_ns;
	u64	rx_ns;		/* slow receiver: per packet, queue of 32 */
	u64	stall_ns;	/* ... taking nothing for 1/5 of the time */
	u8	timeout;	/* the QPs' local ACK timeout, 0: fit the wire */
};

static void bench_cond(const struct bench_cond *c, const u64 *seeds,
		       u32 nseeds, int *failed)
{
	static struct sim_result res;
	struct sim_cfg cfg;
	u64 bytes = 0, ns = 0, max_ns = 0, retx = 0, to = 0, probes = 0;
	u32 i, ok = 0;

	for (i = 0; i < nseeds; i++) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.seed = seeds[i];
		cfg.bench_mix = true;
		cfg.timeout = c->timeout;
		cfg.budget = 1024 * 1024;
		cfg.max_ops = 48;
		cfg.wire.loss = c->loss;
		cfg.wire.latency_ns = c->latency_ns;
		cfg.wire.jitter_ns = c->jitter_ns;
		cfg.wire.ps_per_byte = 800;
		cfg.wire.rx_ns = c->rx_ns;
		cfg.wire.rx_queue = 32;
		cfg.wire.stall_ns = c->stall_ns;
		cfg.wire.stall_every_ns = 5 * c->stall_ns;
		cfg.time_limit_ns = 3600 * NS_PER_S;
		cfg.event_limit = 50000000;
		cur_seed = seeds[i];
		snprintf(cur_replay, sizeof(cur_replay), "build/host/sim --bench");
		if (sim_run(&cfg, &res) == SIM_FAILED) {
			printf("# bench %s seed %llu FAILED: %s\n", c->name,
			       (unsigned long long)seeds[i], res.why);
			(*failed)++;
			continue;
		}
		ok += res.outcome == SIM_DONE;
		bytes += res.bytes;
		ns += res.finish_ns;
		max_ns = res.finish_ns > max_ns ? res.finish_ns : max_ns;
		retx += res.cnt[SC_RETRANSMITS];
		/* expiries: retransmit timeouts, and the probes before them */
		to += res.cnt[SC_EV_BASE + SROCE_EV_TIMEOUT];
		probes += res.cnt[SC_TIMEOUTS] -
			  res.cnt[SC_EV_BASE + SROCE_EV_TIMEOUT];
	}
	printf("%-22s %8.1f MB/s %7.2f Gb/s  mean %9.3f ms  max %9.3f ms  %u/%u done  retx %llu  timeouts %llu  probes %llu\n",
	       c->name, ns ? (double)bytes * 1e3 / (double)ns : 0,
	       ns ? (double)bytes * 8 / (double)ns : 0,
	       nseeds ? (double)ns / nseeds / 1e6 : 0, (double)max_ns / 1e6,
	       ok, nseeds, (unsigned long long)retx, (unsigned long long)to,
	       (unsigned long long)probes);
	fflush(stdout);
}

static int run_bench(void)
{
	static const u64 seeds[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const struct bench_cond conds[] = {
		{ "lossless",          0,    10000, 0, 0, 0, 0 },
		{ "loss 2%",           0.02, 10000, 0, 0, 0, 0 },
		{ "loss 10%",          0.10, 10000, 0, 0, 0, 0 },
		{ "loss 2%, timeout 14", 0.02, 10000, 0, 0, 0, 14 },
		{ "loss 10%, timeout 14", 0.10, 10000, 0, 0, 0, 14 },
		{ "5 ms +- 5 ms",      0,  5000000, 5000000, 0, 0, 0 },
		{ "slow receiver",     0,    10000, 0, 30000, 0, 0 },
		{ "slower than timeout", 0,  10000, 0, 100000, 0, 0 },
		{ "slow rx, 2 ms stalls", 0, 10000, 0, 30000, 2000000, 0 },
		{ "slow rx, 20 ms stalls", 0, 10000, 0, 30000, 20000000, 0 },
	};
	int failed = 0;
	u32 i;

	printf("# sroce simulator bench: %zu seeds, ~2 MiB of mixed RC work each (both directions),\n"
	       "# 10 Gb/s link, 10 us latency unless said, MTU 4096, SQ 128, max_rd 8;\n"
	       "# slow receiver: 30 us (slower than timeout: 100 us) a packet, 32 queued at most,\n"
	       "# the rest dropped; stalls: none taken for 2 (20) ms of every 10 (100);\n"
	       "# the QPs' timeout fits the wire (1 ms) unless said (14: 67 ms, perftest's)\n",
	       sizeof(seeds) / sizeof(seeds[0]));
	printf("%-22s %13s %12s  %17s  %16s\n", "condition", "goodput", "",
	       "completion", "");
	for (i = 0; i < sizeof(conds) / sizeof(conds[0]); i++)
		bench_cond(&conds[i], seeds, sizeof(seeds) / sizeof(seeds[0]),
			   &failed);
	return failed ? 1 : 0;
}

/* ---------------------------------------------------------------- */

static int run_fuzz_input(const struct opts *o)
{
	static struct sim_forge script[4096];
	static u8 data[1 << 16];
	static struct sim_result res;
	struct sim_cfg cfg;
	FILE *f = fopen(o->fuzz_input, "rb");
	size_t size;

	if (!f) {
		perror(o->fuzz_input);
		return 2;
	}
	size = fread(data, 1, sizeof(data), f);
	fclose(f);
	sim_cfg_decode(data, size, &cfg, script, 4096);
	cfg.verbose = o->cfg.verbose ? o->cfg.verbose : 1;
	snprintf(cur_replay, sizeof(cur_replay), "build/host/sim --fuzz-input %s",
		 o->fuzz_input);
	sim_run(&cfg, &res);
	print_result(1, cfg.seed, "fuzz-input", &res, NULL);
	return res.outcome == SIM_FAILED;
}

int main(int argc, char **argv)
{
	struct opts o;

	parse_opts(argc, argv, &o);
	signal(SIGABRT, on_abort);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(on_sanitizer_death);
	if (o.bench)
		return run_bench();
	if (o.fuzz_input)
		return run_fuzz_input(&o);
	return run_batch(&o);
}
