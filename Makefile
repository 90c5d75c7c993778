# toolgate: the two set-up commands of the README, wrapping CMake.
#   make demo   install what is needed, build, run the demo on the default home
#   make test   install what is needed, build, run every test through ctest
# Other targets: build, install (PREFIX=/usr/local), sanitize (ASan+UBSan
# build and its tests), bench, deb (the Debian package, build/deb/), clean.
# A build folder keeps its configuration: TG_WERROR and CMAKE_FLAGS reach
# CMake only when given (a flip of a compile flag would rebuild every file),
# and install reuses the build folder as it is, with PREFIX given to
# `cmake --install --prefix` rather than to a new configure.

BUILD ?= build
ASAN_BUILD ?= build-asan
PREFIX ?= /usr/local
TG_WERROR ?=
CTEST_JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: all deps build test demo sanitize install bench deb clean

all: build

deps:
	@sh scripts/install-deps.sh

CONFIGURE = cmake -S . -B $(BUILD) $(if $(TG_WERROR),-DTG_WERROR=$(TG_WERROR)) $(CMAKE_FLAGS)

build:
	$(CONFIGURE) -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD) -j2

test: deps build
	cd $(BUILD) && ctest --output-on-failure -j$(CTEST_JOBS)

demo: deps build
	sh scripts/demo.sh $(BUILD)/cli/toolgate

sanitize: deps
	cmake -S . -B $(ASAN_BUILD) $(if $(TG_WERROR),-DTG_WERROR=$(TG_WERROR)) -DTG_SANITIZE="address;undefined" \
		-DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j2
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j$(CTEST_JOBS) -LE nosan

install:
	[ -f $(BUILD)/CMakeCache.txt ] || $(CONFIGURE) -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD) -j2
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: build
	TG_BENCH_DEPS=1 sh scripts/install-deps.sh
	sh bench/run.sh $(BUILD)

deb: deps
	sh packaging/build-deb.sh $(BUILD)/deb

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
