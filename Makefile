# agentbox: `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD_DIR ?= build
CMAKE_FLAGS ?=

.PHONY: all build deps test demo bench clean format install deb

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

# `cmake --install` of the build: PREFIX (default /usr/local), DESTDIR as usual.
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# The Debian package: $(BUILD_DIR)/agentbox_<version>_amd64.deb (CPack; cmake/packaging.cmake).
deb: build
	@cd $(BUILD_DIR) && cpack -G DEB >/dev/null && ls $$PWD/agentbox_*_amd64.deb

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
