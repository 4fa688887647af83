#!/bin/sh
# Installs what the reference (package reference: Flink's own classes run beside the model)
# needs, when it is missing: a JDK 17 and the Debian jars standing for the libraries Flink shades.
# Without root or apt-get it only says what is missing; the tests then skip the reference (or
# fail when CI is set).
set -eu
pkgs=""
command -v javac >/dev/null 2>&1 || pkgs="$pkgs openjdk-17-jdk-headless"
for pair in guava.jar:libguava-java netty-buffer.jar:libnetty-java netty-common.jar:libnetty-java \
	slf4j-api.jar:libslf4j-java jsr305.jar:libjsr305-java commons-math3.jar:libcommons-math3-java \
	commons-collections3.jar:libcommons-collections3-java commons-lang3.jar:libcommons-lang3-java; do
	jar=${pair%%:*}; pkg=${pair#*:}
	if [ ! -f "/usr/share/java/$jar" ]; then
		case " $pkgs " in *" $pkg "*) ;; *) pkgs="$pkgs $pkg" ;; esac
	fi
done
[ -z "$pkgs" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "--- installing for the reference:$pkgs"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
else
	echo "reference: missing$pkgs (install them to run Flink's own classes beside the model)" >&2
fi
