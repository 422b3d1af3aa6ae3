#!/bin/sh
# Runs the loop benchmarks: finds a JDK >= 21, then `java -jar target/benchmarks.jar "$@"`.
# Every argument goes to JMH, e.g.
#   loop-bench/run.sh -f 1 -wi 3 -w 1s -i 5 -r 1s -prof gc
# or, with `compare` first, runs the backend comparison command with the remaining arguments:
#   loop-bench/run.sh compare --full
# Build the jar first: mvn -B -pl loop-bench -am package -DskipTests
# Where to look for the JDK: $JAVA_HOME if it is 21 or newer, else the newest JDK >= 21 under
# /usr/lib/jvm, ~/.jdks, ~/.sdkman/candidates/java; `java` on the PATH as a last resort.
set -eu

MIN_VERSION=21
here=$(cd "$(dirname "$0")" && pwd)
jar="$here/target/benchmarks.jar"

if [ ! -f "$jar" ]; then
    echo "run.sh: $jar not found; build it with: mvn -B -pl loop-bench -am package -DskipTests" >&2
    exit 1
fi

# The feature version (8, 17, 21, 25...) of the java launcher $1, or nothing if it does not run.
feature_version() {
    "$1" -XshowSettings:properties -version 2>&1 \
        | sed -n 's/^ *java\.specification\.version = \(.*\)$/\1/p' \
        | sed 's/^1\.//' | head -n 1
}

java_bin=""
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    v=$(feature_version "$JAVA_HOME/bin/java")
    if [ -n "$v" ] && [ "$v" -ge "$MIN_VERSION" ]; then
        java_bin="$JAVA_HOME/bin/java"
    fi
fi

if [ -z "$java_bin" ]; then
    best=0
    for home in /usr/lib/jvm/* "$HOME"/.jdks/* "$HOME"/.sdkman/candidates/java/*; do
        [ -x "$home/bin/java" ] || continue
        v=$(feature_version "$home/bin/java")
        if [ -n "$v" ] && [ "$v" -ge "$MIN_VERSION" ] && [ "$v" -gt "$best" ]; then
            best=$v
            java_bin="$home/bin/java"
        fi
    done
fi

if [ -z "$java_bin" ] && command -v java >/dev/null 2>&1; then
    v=$(feature_version java)
    if [ -n "$v" ] && [ "$v" -ge "$MIN_VERSION" ]; then
        java_bin=$(command -v java)
    fi
fi

if [ -z "$java_bin" ]; then
    echo "run.sh: no JDK $MIN_VERSION or newer found (looked at JAVA_HOME, /usr/lib/jvm, ~/.jdks," \
        "~/.sdkman/candidates/java and the PATH)" >&2
    exit 1
fi

echo "run.sh: using $java_bin" >&2
# JCTools and Netty use sun.misc.Unsafe, which JDK 23+ warns about at every start unless allowed;
# JDK 21 and 22 refuse the flag, so it is passed only to a JDK that knows it.
quiet=""
if [ "$(feature_version "$java_bin")" -ge 23 ]; then
    quiet="--sun-misc-unsafe-memory-access=allow"
fi
if [ "${1:-}" = "compare" ]; then
    shift
    # -cp ignores the manifest's Add-Exports and Enable-Native-Access: pass them here.
    exec "$java_bin" --enable-native-access=ALL-UNNAMED $quiet --add-exports java.base/jdk.internal.vm=ALL-UNNAMED \
        "-Dcompare.invocation=loop-bench/run.sh compare" -cp "$jar" dev.loop.bench.compare.Compare "$@"
fi
exec "$java_bin" $quiet -jar "$jar" "$@"
