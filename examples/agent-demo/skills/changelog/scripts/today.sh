#!/bin/sh
date +%Y-%m-%d
