# restoresim — run `make help` for the targets.
GO          ?= go
STATICCHECK  = $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: help build test short race soak bench bench-fixed bench-replay production lint mutants flink-mutants rewrite plots reference-deps differential

help:            ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

build:           ## build everything
	$(GO) build ./...

test: reference-deps ## the full test suite (what CI runs; installs the reference's Java packages first)
	$(GO) test -timeout 45m ./...

reference-deps:  ## install the JDK and Debian jars the reference (Flink's own classes) needs, when missing and root
	@sh reference/install-deps.sh

differential:    ## the model against Flink's own classes on every version with sources (CASES=20000)
	$(GO) run ./cmd/simulate differential --flink 1.18,1.19,1.20,2.0,2.1,2.2,2.3,master --cases $(or $(CASES),20000)

short:           ## the quick suite (-short)
	$(GO) test -short ./...

race:            ## the suite under the race detector (murmur3 needs checkptr off, see STYLE.md)
	$(GO) test -race -gcflags=all=-d=checkptr=0 ./...

soak:            ## the property suite with many more checks
	$(GO) test ./properties -rapid.checks=20000 -timeout 2h

bench:           ## every benchmark, with allocations
	$(GO) test -run '^$$' -bench . -benchmem ./...

bench-fixed:     ## the fixed-scenario replay, this tree vs OLD (default 84ebf78) side by side (ROUNDS=8; BENCH=BenchmarkRunFixedParallel, PROCS=1)
	sh sim/testdata/fixed/compare.sh $(OLD)

bench-replay:    ## whole-process `simulate replay` of ../shared/perf-scenarios, this tree vs OLD (default 5c680f9) side by side (ROUNDS=9, DIR=…)
	bash sim/testdata/fixed/replay.sh $(OLD)

production:      ## the production-size benchmarks: read, inspect, plan 50 operators x 500/1,000/2,000 subtasks (a 2.5 GB file; ~12 GB of memory)
	GOGC=25 $(GO) test ./model/savepoint -run '^$$' -bench Production -benchtime 1x -benchmem -production.subtasks 500,1000,2000

lint:            ## gofmt, go vet, staticcheck
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo 'gofmt: the files above need formatting'; exit 1)
	$(GO) vet ./...
	$(GO) vet -tags mutants ./...
	$(STATICCHECK) ./...

mutants:         ## the properties, the planner tests and the scenarios against every known-bug mutant: the kill matrix
	$(GO) run ./model/internal/mutant/driver

flink-mutants:   ## the injected Flink bugs (reference/mutants) against 'sweep --sut flink': the kill matrix of docs/properties.md (SEEDS=1500)
	$(GO) run ./reference/mutants/matrix -seeds $(or $(SEEDS),1500)

rewrite:         ## regenerate scenario golden output (review the diff!)
	$(GO) test ./scenarios -rewrite

plots:           ## regenerate the charts in docs/ with the tool itself
	$(GO) run ./cmd/simulate skew --max-parallelism 128,256,720 --parallelism 1..300 --out docs/skew.png > /dev/null
	$(GO) run ./cmd/simulate skew --max-parallelism 128..1024 --parallelism 1..512 --chart heatmap --out docs/skew-heatmap.png > /dev/null
	$(GO) run ./cmd/simulate moved --from 8 --to 1..64 --max-parallelism 128,720,4096 --out docs/moved.png > /dev/null
