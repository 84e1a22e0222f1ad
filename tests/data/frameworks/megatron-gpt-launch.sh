#!/bin/bash
# A Megatron-LM launch script in the layout of examples/gpt3/train_gpt3_175b_distributed.sh:
# bash arrays of flags, torchrun's node and process counts from shell variables.
export CUDA_DEVICE_MAX_CONNECTIONS=1

GPUS_PER_NODE=8
NUM_NODES=16
MASTER_ADDR=localhost
MASTER_PORT=6000
WORLD_SIZE=$(($GPUS_PER_NODE*$NUM_NODES))

CHECKPOINT_PATH=$1
VOCAB_FILE=$3
MERGE_FILE=$4
DATA_PATH=$5

DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
    --master_addr $MASTER_ADDR
    --master_port $MASTER_PORT
)

GPT_MODEL_ARGS=(
    --num-layers 40
    --hidden-size 6144
    --num-attention-heads 48
    --seq-length 2048
    --max-position-embeddings 2048
    --attention-backend auto # flash/fused/unfused/local
)

TRAINING_ARGS=(
    --micro-batch-size 2
    --global-batch-size 1024
    --train-iters 500000
    --weight-decay 0.1
    --clip-grad 1.0
    --bf16
    --lr 6.0e-5
    --lr-decay-style cosine
    --recompute-activations
    --use-distributed-optimizer
)

MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size 4
    --pipeline-model-parallel-size 4
    --num-layers-per-virtual-pipeline-stage 5
    --sequence-parallel
)

DATA_ARGS=(
    --data-path $DATA_PATH
    --vocab-file $VOCAB_FILE
    --merge-file $MERGE_FILE
    --split 949,50,1
)

torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \
    ${GPT_MODEL_ARGS[@]} \
    ${TRAINING_ARGS[@]} \
    ${MODEL_PARALLEL_ARGS[@]} \
    ${DATA_ARGS[@]} \
    --save $CHECKPOINT_PATH \
    --load $CHECKPOINT_PATH
