# agentbox: `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD_DIR ?= build
CMAKE_FLAGS ?=

.PHONY: all build deps test demo bench clean format

all: build

deps:
	@scripts/install-deps.sh build

build: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) -j$$(nproc)

# Starts (and stops again) a Docker daemon when none answers; one summary line per suite.
test: build
	@scripts/run-tests.sh $(BUILD_DIR)

demo: build
	@scripts/install-deps.sh test
	@scripts/demo.sh $(BUILD_DIR)/agentbox

bench: build
	@scripts/install-deps.sh bench
	@bench/run

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
