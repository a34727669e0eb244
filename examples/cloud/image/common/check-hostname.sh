#!/bin/bash
# Prints the machine's fully qualified name for later validators.
hostname -f
