#!/bin/bash
echo done > /app/status.txt
