# restoresim — run `make help` for the targets.
GO        ?= go
STATICCHECK = $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: help test short race soak bench lint rewrite build

help:            ## list the targets
	@grep -E '^[a-z]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*##/\t/'

build:           ## build everything
	$(GO) build ./...

test:            ## the full test suite (what CI runs)
	$(GO) test ./...

short:           ## the quick suite (-short)
	$(GO) test -short ./...

race:            ## the suite under the race detector (murmur3 needs checkptr off, see STYLE.md)
	$(GO) test -race -gcflags=all=-d=checkptr=0 ./...

soak:            ## the property suite with many more checks
	$(GO) test ./properties -rapid.checks=20000 -timeout 2h

bench:           ## every benchmark, with allocations
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:            ## gofmt, go vet, staticcheck
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo 'gofmt: the files above need formatting'; exit 1)
	$(GO) vet ./...
	$(STATICCHECK) ./...

rewrite:         ## regenerate scenario golden output (review the diff!)
	$(GO) test ./scenarios -rewrite

