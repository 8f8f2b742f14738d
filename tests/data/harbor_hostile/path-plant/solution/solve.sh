#!/bin/bash
ledger-total > /app/total.txt
