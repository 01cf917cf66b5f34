# Thin shortcuts: every target calls the same scripts the README documents, so those stay the source
# of truth. The image targets are opt-in checks (podman + debootstrap, installed by hand); they are not
# part of scripts/test or CI.
.PHONY: serve test proto lint-proto base-image image image-smoke

BASE_IMAGE ?= localhost/debian:bookworm-slim
IMAGE ?= localhost/outrider:dev
# The gRPC port of the server `make image-smoke` starts inside the image (on 127.0.0.1 only).
SMOKE_PORT ?= 50051
# The Debian mirror apt already uses (first URIs line of debian.sources); no registry is reachable.
DEBIAN_MIRROR ?= $(shell awk '/^URIs:/ {print $$2; exit}' /etc/apt/sources.list.d/debian.sources)
# pip in the build needs this machine's CA bundle (HTTPS to PyPI goes through its CA). PyPI itself is
# reached directly: the host's extra file:// indexes (pip.conf) are not needed for the pinned set.
HOST_CA ?= /etc/ssl/certs/ca-certificates.crt

serve:
	scripts/serve

test:
	scripts/test

proto:
	scripts/gen-proto

lint-proto:
	node_modules/.bin/buf lint

# debootstrap's minbase stands in for debian:bookworm-slim. The host's deb822 sources (with
# bookworm-updates and -security) replace debootstrap's one-line sources.list; the dpkg excludes
# are the ones the official slim image uses, so docs, man pages and locales of later installs
# never land, and what debootstrap itself installed of them goes too (as in the slim image: ~45 MB);
# import sets PATH and CMD as the official image has them.
base-image:
	set -e; dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; \
	debootstrap --variant=minbase bookworm "$$dir" "$(DEBIAN_MIRROR)"; \
	rm -f "$$dir/etc/apt/sources.list"; cp /etc/apt/sources.list.d/debian.sources "$$dir/etc/apt/sources.list.d/"; \
	printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
	  'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' \
	  'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/locale.alias' \
	  > "$$dir/etc/dpkg/dpkg.cfg.d/slim"; \
	find "$$dir/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete; \
	find "$$dir/usr/share/doc" -mindepth 1 -type d -empty -delete; \
	find "$$dir/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +; \
	rm -rf "$$dir"/usr/share/man/* "$$dir"/usr/share/info/*; \
	rm -rf "$$dir"/var/lib/apt/lists/* "$$dir"/var/cache/apt/*.bin "$$dir"/var/cache/apt/archives/*.deb; \
	tar -C "$$dir" -c . | podman import \
	  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	  --change 'CMD ["bash"]' - $(BASE_IMAGE)

# --isolation=chroot: crun's cgroup mode fails on this machine. --format docker: the OCI format
# has no HEALTHCHECK and podman would drop it.
image:
	podman build --isolation=chroot --format docker --build-arg BASE_IMAGE=$(BASE_IMAGE) \
	  -v $(HOST_CA):/etc/ssl/certs/host-ca.crt:ro --build-arg PIP_CERT=/etc/ssl/certs/host-ca.crt \
	  -t $(IMAGE) .

image-smoke:
	IMAGE=$(IMAGE) PORT=$(SMOKE_PORT) scripts/image-smoke
